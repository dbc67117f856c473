import assert from "node:assert/strict";
import { test } from "node:test";
import { readStatus, STATUS_ACTIONS, statusView } from "../src/status";

const READY = { memories: 13, errors: 2, warnings: 5, roots: 2, scanning: false, scanned: 0, total: 0 };

test("a ready status shows the memory count, then errors and warnings", () => {
  assert.equal(statusView(READY, "memls on python3").text, "$(book) memls: 13 memories $(error) 2 $(warning) 5");
});

test("zero errors or warnings are left out, and one memory is singular", () => {
  assert.equal(statusView({ ...READY, memories: 1, errors: 0 }, "").text, "$(book) memls: 1 memory $(warning) 5");
  assert.equal(statusView({ ...READY, errors: 0, warnings: 0 }, "").text, "$(book) memls: 13 memories");
});

test("while scanning the item shows the progress instead of a count", () => {
  const view = statusView({ ...READY, scanning: true, scanned: 2500, total: 3001, memories: 2400 }, "");
  assert.equal(view.text, "$(sync~spin) memls: indexing 2500/3001");
  assert.match(view.tooltip, /2500 of 3001/);
});

test("the tooltip says the roots, the counts in words, the server and that a click offers actions", () => {
  const tooltip = statusView(READY, "memls 0.1.0 on /usr/bin/python3").tooltip;
  assert.match(tooltip, /13 memories in 2 roots; 2 errors, 5 warnings/);
  assert.match(tooltip, /memls 0\.1\.0 on \/usr\/bin\/python3/);
  assert.match(tooltip, /Click for memls actions/);
});

test("a notification without the three counts is not a status", () => {
  assert.deepEqual(readStatus(READY), READY);
  assert.equal(readStatus({ memories: 3, errors: 0 }), undefined);
  assert.equal(readStatus({ memories: -1, errors: 0, warnings: 0 }), undefined);
  assert.equal(readStatus(null), undefined);
  assert.deepEqual(readStatus({ memories: 3, errors: 0, warnings: 1 }), { memories: 3, errors: 0, warnings: 1, roots: 0, scanning: false, scanned: 0, total: 0 });
});

test("the click offers new memory, recall, regenerate, problems, output and restart", () => {
  assert.deepEqual(
    STATUS_ACTIONS.map((a) => a.command),
    ["memls.palette.newMemory", "memls.palette.recall", "memls.palette.regenerateIndex", "workbench.actions.view.problems", "memls.showOutput", "memls.restartServer"],
  );
});
