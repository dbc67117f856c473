import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { isMemoryDocument, memoryDocumentFilters, rootsFromMarkers } from "../src/memoryDocuments";

const staticFilters = memoryDocumentFilters([]);

for (const file of [
  "/work/project/memory/prefer-uv.md",
  "/work/project/docs/memory/x.md",
  "/home/u/.claude/projects/-work-project/memory/feedback-tests.md",
  "/work/project/memory/MEMORY.md",
  "/anywhere/MEMORY.md",
]) {
  test(`selector matches the memory document ${file}`, () => {
    assert.equal(isMemoryDocument(file, staticFilters), true);
  });
}

for (const file of [
  "/work/project/README.md",
  "/work/project/docs/notes.md",
  "/work/project/docs/memory.md",
  "/work/project/memory/nested/deeper.md",
  "/work/project/memory/notes.txt",
  "/work/project/memory-notes/x.md",
]) {
  test(`selector leaves other Markdown alone: ${file}`, () => {
    assert.equal(isMemoryDocument(file, staticFilters), false);
  });
}

test("a configured root adds exactly the Markdown files directly inside it", () => {
  const filters = memoryDocumentFilters(["/data/notes"]);
  assert.equal(isMemoryDocument("/data/notes/decision.md", filters), true);
  assert.equal(isMemoryDocument("/data/notes/sub/decision.md", filters), false);
  assert.equal(isMemoryDocument("/data/notes-old/decision.md", filters), false);
  assert.equal(isMemoryDocument("/data/notes/picture.png", filters), false);
});

test("roots are listed once each, after the static globs", () => {
  const filters = memoryDocumentFilters(["/data/notes", "/data/notes/", "/data/other"]);
  assert.deepEqual(
    filters.filter((f) => f.kind === "root"),
    [
      { kind: "root", directory: path.resolve("/data/notes") },
      { kind: "root", directory: path.resolve("/data/other") },
    ],
  );
  assert.equal(filters.filter((f) => f.kind === "glob").length, 3);
});

test("marker files make their folders roots, each folder once", () => {
  assert.deepEqual(rootsFromMarkers(["/a/notes/MEMORY.md", "/a/notes/.memory-index.json", "/b/MEMORY.md"]), ["/a/notes", "/b"]);
});
