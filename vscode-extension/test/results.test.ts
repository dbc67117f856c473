import assert from "node:assert/strict";
import { test } from "node:test";
import { frontmatterHeader, isEntryFileName, locationPath, recallItems } from "../src/results";

test("recall results read from a list of objects, keeping name, description and location", () => {
  assert.deepEqual(recallItems([{ name: "a", description: "d", path: "/m/a.md", score: 2 }, { name: "b", uri: "file:///m/b.md" }]), [
    { name: "a", description: "d", location: "/m/a.md" },
    { name: "b", description: "", location: "file:///m/b.md" },
  ]);
});

test("recall results read from {results: [...]} and plain names; junk is ignored", () => {
  assert.deepEqual(recallItems({ results: ["a", 3, { description: "no name" }] }), [{ name: "a", description: "" }]);
  assert.deepEqual(recallItems(null), []);
});

test("file URIs and absolute paths become paths; relative ones are refused", () => {
  assert.equal(locationPath("file:///m/a%20b.md"), "/m/a b.md");
  assert.equal(locationPath("/m/a.md"), "/m/a.md");
  assert.equal(locationPath("a.md"), undefined);
});

test("the frontmatter header gives name and description, unquoting YAML scalars", () => {
  const text = `---\nname: "prefer-uv"\ndescription: 'it''s faster'\n---\nname: not-this\n`;
  assert.deepEqual(frontmatterHeader(text, "/m/x.md"), { name: "prefer-uv", description: "it's faster", location: "/m/x.md" });
});

test("the frontmatter header gives status and superseded_by when present", () => {
  const text = "---\nname: a\nstatus: superseded\nsuperseded_by: b\n---\n";
  assert.deepEqual(frontmatterHeader(text, "/m/a.md"), { name: "a", description: "", location: "/m/a.md", status: "superseded", supersededBy: "b" });
});

test("without a name key the entry is named after its file", () => {
  assert.equal(frontmatterHeader("---\ndescription: d\n---\n", "/m/use-uv.md").name, "use-uv");
  assert.equal(frontmatterHeader("no frontmatter", "/m/plain.md").name, "plain");
});

test("index, reserved and hidden files are not entry files", () => {
  assert.equal(isEntryFileName("use-uv.md"), true);
  assert.equal(isEntryFileName("MEMORY.md"), false);
  assert.equal(isEntryFileName("memory-archive.md"), false);
  assert.equal(isEntryFileName(".draft.md"), false);
  assert.equal(isEntryFileName("notes.txt"), false);
});
