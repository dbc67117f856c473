import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { PythonProbe } from "../src/python";
import { findExecutable, resolveServerCommand, ResolutionInputs } from "../src/serverCommand";

const SCRIPT = "/ext/bundled/tool/server.py";

/** Inputs where nothing is configured or installed, and every Python is 3.12. */
function inputs(overrides: Partial<ResolutionInputs> & { pythons?: Record<string, PythonProbe> } = {}): ResolutionInputs & { probed: string[] } {
  const probed: string[] = [];
  const pythons = overrides.pythons ?? {};
  return {
    serverPath: "",
    interpreter: "",
    bundledServerScript: SCRIPT,
    findExecutable: () => undefined,
    pythonExtensionInterpreter: async () => undefined,
    probe: async (python) => {
      probed.push(python);
      return pythons[python] ?? { kind: "ok", version: [3, 12, 1] };
    },
    isFile: () => true,
    platform: "linux",
    probed,
    ...overrides,
  };
}

test("memls.server.path wins over everything and runs `serve`", async () => {
  const given = inputs({ serverPath: "/venv/bin/memls", findExecutable: () => "/usr/bin/memls", interpreter: "/usr/bin/python3" });
  const result = await resolveServerCommand(given);
  assert.deepEqual(result, { ok: true, server: { command: "/venv/bin/memls", args: ["serve"], source: "server.path" }, notes: [] });
  assert.deepEqual(given.probed, []);
});

test("memls.server.path that is not a file is an error naming the setting, with no fallback", async () => {
  const result = await resolveServerCommand(inputs({ serverPath: "/nope/memls", isFile: () => false, findExecutable: () => "/usr/bin/memls" }));
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.fix === "memls.server.path" && result.message.includes("/nope/memls"));
});

test("memls on PATH comes second", async () => {
  const result = await resolveServerCommand(
    inputs({ findExecutable: (name) => (name === "memls" ? "/usr/local/bin/memls" : undefined), pythonExtensionInterpreter: async () => "/venv/bin/python" }),
  );
  assert.ok(result.ok);
  assert.deepEqual(result.server, { command: "/usr/local/bin/memls", args: ["serve"], source: "PATH" });
});

test("memls.server.interpreter runs the bundled server before the Python extension's interpreter", async () => {
  const result = await resolveServerCommand(inputs({ interpreter: "/opt/py/bin/python3", pythonExtensionInterpreter: async () => "/venv/bin/python" }));
  assert.ok(result.ok);
  assert.deepEqual(result.server, { command: "/opt/py/bin/python3", args: [SCRIPT], source: "server.interpreter" });
});

test("a too-old memls.server.interpreter is an error pointing at that setting", async () => {
  const result = await resolveServerCommand(
    inputs({ interpreter: "/old/python", pythons: { "/old/python": { kind: "ok", version: [3, 8, 18] } } }),
  );
  assert.ok(!result.ok);
  assert.equal(result.fix, "memls.server.interpreter");
  assert.match(result.message, /\/old\/python is Python 3\.8\.18\. Set memls\.server\.interpreter/);
});

test("the Python extension's interpreter runs the bundled server when nothing is configured", async () => {
  const result = await resolveServerCommand(inputs({ pythonExtensionInterpreter: async () => "/venv/bin/python" }));
  assert.ok(result.ok);
  assert.deepEqual(result.server, { command: "/venv/bin/python", args: [SCRIPT], source: "python-extension" });
});

test("a too-old Python extension interpreter is skipped with a note, and python3 is used", async () => {
  const result = await resolveServerCommand(
    inputs({ pythonExtensionInterpreter: async () => "/venv39/bin/python", pythons: { "/venv39/bin/python": { kind: "ok", version: [3, 9, 18] } } }),
  );
  assert.ok(result.ok);
  assert.deepEqual(result.server, { command: "python3", args: [SCRIPT], source: "default-python" });
  assert.equal(result.notes.length, 1);
  assert.match(result.notes[0], /\/venv39\/bin\/python is Python 3\.9\.18/);
});

test("python3 is the last resort, python on Windows", async () => {
  const linux = await resolveServerCommand(inputs());
  const windows = await resolveServerCommand(inputs({ platform: "win32" }));
  assert.ok(linux.ok && windows.ok);
  assert.equal(linux.server.command, "python3");
  assert.equal(windows.server.command, "python");
});

test("no usable Python at all is an error saying what to install or set", async () => {
  const result = await resolveServerCommand(inputs({ pythons: { python3: { kind: "missing", detail: "not found" } } }));
  assert.ok(!result.ok);
  assert.equal(result.fix, "memls.server.interpreter");
  assert.match(result.message, /python3 was not found\. Install Python 3\.10\+, or set memls\.server\.interpreter/);
});

test("findExecutable returns the first executable on PATH and skips non-executable files", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "memls-path-"));
  try {
    const [a, b] = ["a", "b"].map((d) => fs.mkdirSync(path.join(tmp, d)) ?? path.join(tmp, d));
    fs.writeFileSync(path.join(a, "memls"), "", { mode: 0o644 });
    fs.writeFileSync(path.join(b, "memls"), "#!/bin/sh\n", { mode: 0o755 });
    const env = { PATH: [path.join(tmp, "missing"), a, b].join(":") };
    assert.equal(findExecutable("memls", env, "linux"), path.join(b, "memls"));
    assert.equal(findExecutable("absent", env, "linux"), undefined);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
