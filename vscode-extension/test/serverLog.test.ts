import assert from "node:assert/strict";
import { test } from "node:test";
import { stderrLevels } from "../src/serverLog";

test("each log record is shown at its own level, not as an error", () => {
  const level = stderrLevels();
  assert.equal(level("WARNING:memls.lsp.server:the client did not answer workspace/configuration"), "warn");
  assert.equal(level("INFO:memls.lsp.errors:request refused: save a.md first"), "info");
  assert.equal(level("DEBUG:memls.lsp.protocol:cancel for request 4, which is no longer running"), "debug");
  assert.equal(level("ERROR:memls.lsp.diagnostics:checking 3 documents failed"), "error");
});

test("a traceback keeps the level of the record it belongs to", () => {
  const level = stderrLevels();
  level("ERROR:memls.lsp.features.commands:command memls.recall failed");
  assert.equal(level("Traceback (most recent call last):"), "error");
  assert.equal(level('  File "x.py", line 1, in f'), "error");
  assert.equal(level("ValueError: bad"), "error");
  level("WARNING:pygls:something");
  assert.equal(level("  continued"), "warn");
});

test("output that is no log record is an error", () => {
  const level = stderrLevels();
  level("INFO:memls:started");
  assert.equal(level("Fatal Python error: Segmentation fault"), "error");
});
