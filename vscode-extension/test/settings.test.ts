import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { absoluteRoots, expandVariables, initializationOptions, needsRestart, serverSettings } from "../src/settings";

const reader = (values: Record<string, unknown>) => (key: string) => values[key];

test("defaults map to an empty severity table, no roots and index on save auto", () => {
  assert.deepEqual(initializationOptions(reader({})), {
    settings: { severity: {}, roots: [], index: { onSave: "auto" } },
    client: { markdownOutline: true, memoriesView: true, statusNotification: true },
  });
});

test("settings map to the server's table under initializationOptions.settings", () => {
  const options = initializationOptions(
    reader({ "index.onSave": "off", severity: { "missing-description": "error", "unknown-key": "off" }, roots: ["/data/notes"] }),
  );
  assert.deepEqual(options.settings, {
    severity: { "missing-description": "error", "unknown-key": "off" },
    roots: ["/data/notes"],
    index: { onSave: "off" },
  });
});

test("client-only settings are not sent to the server", () => {
  const settings = serverSettings(reader({ "server.path": "/bin/memls", "trace.server": "verbose", "index.onSave": "regenerate" }));
  assert.deepEqual(Object.keys(settings).sort(), ["index", "roots", "severity"]);
});

test("an unknown index.onSave value falls back to auto", () => {
  assert.equal(serverSettings(reader({ "index.onSave": "sometimes" })).index.onSave, "auto");
});

test("non-string severities and roots are dropped, bad severity words are passed on for the server to report", () => {
  const settings = serverSettings(reader({ severity: { a: 3, b: "loud" }, roots: [1, "", "  ", "x"] }));
  assert.deepEqual(settings.severity, { b: "loud" });
  assert.deepEqual(settings.roots, ["x"]);
});

test("roots expand ~, ${userHome} and ${workspaceFolder}", () => {
  const context = { workspaceFolder: "/work/p", home: "/home/u" };
  assert.deepEqual(serverSettings(reader({ roots: ["~/mem", "${userHome}/m2", "${workspaceFolder}/m3"] }), context).roots, [
    path.join("/home/u", "mem"),
    "/home/u/m2",
    "/work/p/m3",
  ]);
  assert.equal(expandVariables("a~b", context), "a~b");
});

test("relative roots are taken from the first workspace folder", () => {
  const settings = serverSettings(reader({ roots: ["notes", "/abs"] }));
  assert.deepEqual(absoluteRoots(settings, { workspaceFolder: "/work/p" }), [path.resolve("/work/p/notes"), path.resolve("/abs")]);
});

test("changing the server command or roots needs a restart; severities do not", () => {
  assert.equal(needsRestart((key) => key === "memls.server.path"), true);
  assert.equal(needsRestart((key) => key === "memls.roots"), true);
  assert.equal(needsRestart((key) => key === "memls.severity"), false);
});
