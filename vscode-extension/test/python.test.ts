import assert from "node:assert/strict";
import { test } from "node:test";
import { isSupported, parsePythonVersion, probePython, pythonProblem } from "../src/python";

test("version output parses to three numbers", () => {
  assert.deepEqual(parsePythonVersion("3.11.7\n"), [3, 11, 7]);
  assert.equal(parsePythonVersion("Python 3.11.7"), undefined);
});

test("3.10 is the oldest supported Python", () => {
  assert.equal(isSupported([3, 10, 0]), true);
  assert.equal(isSupported([3, 9, 18]), false);
  assert.equal(isSupported([2, 7, 18]), false);
  assert.equal(isSupported([4, 0, 0]), true);
});

test("a supported interpreter has no problem", () => {
  assert.equal(pythonProblem("python3", { kind: "ok", version: [3, 12, 1] }), undefined);
});

test("too old an interpreter is named with its version", () => {
  assert.equal(
    pythonProblem("/usr/bin/python3", { kind: "ok", version: [3, 8, 18] }),
    "memls needs Python 3.10 or newer, but /usr/bin/python3 is Python 3.8.18.",
  );
});

test("a missing interpreter is named as not found", () => {
  assert.equal(pythonProblem("python3", { kind: "missing", detail: "not found" }), "memls needs Python 3.10 or newer, but python3 was not found.");
});

test("an interpreter that fails says how", () => {
  assert.equal(pythonProblem("py", { kind: "failed", detail: "boom" }), "memls could not run py: boom");
});

test("probing a command that does not exist reports it missing", async () => {
  assert.deepEqual(await probePython("/nonexistent/python-for-memls-test"), { kind: "missing", detail: "not found" });
});

test("probing the Node binary as if it were Python reports a failure, not a version", async () => {
  const probe = await probePython(process.execPath);
  assert.equal(probe.kind, "failed");
});
