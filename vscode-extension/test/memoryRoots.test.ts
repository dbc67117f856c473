import assert from "node:assert/strict";
import { test } from "node:test";
import { rootChoices, serverRoots } from "../src/memoryRoots";

const INFO = {
  roots: [
    { scope: "project", path: "/ws/alpha/memory", entries: 3, documents: 4 },
    { scope: "project", path: "/ws/beta/memory", entries: 1, documents: 1 },
    { scope: "cc", path: "/home/u/.claude/projects/-ws-alpha/memory", entries: 0, documents: 0 },
    { scope: 7, path: "junk" },
  ],
};

test("the server's roots are read from debugInfo; junk is ignored", () => {
  assert.deepEqual(serverRoots(INFO).map((r) => r.path), ["/ws/alpha/memory", "/ws/beta/memory", "/home/u/.claude/projects/-ws-alpha/memory"]);
  assert.deepEqual(serverRoots({}), []);
});

test("each root is offered by folder and layer, with its path and count", () => {
  const choices = rootChoices(serverRoots(INFO), ["/ws/alpha", "/ws/beta"], undefined);
  assert.deepEqual(choices.map((c) => c.label), ["alpha: project", "beta: project", "Claude Code"]);
  assert.equal(choices[0].detail, "/ws/alpha/memory (3 memories)");
  assert.equal(choices[1].detail, "/ws/beta/memory (1 memory)");
});

test("the last root chosen comes first, marked", () => {
  const choices = rootChoices(serverRoots(INFO), ["/ws/alpha", "/ws/beta"], "/ws/beta/memory");
  assert.equal(choices[0].root, "/ws/beta/memory");
  assert.equal(choices[0].description, "last used");
  assert.deepEqual(choices.slice(1).map((c) => c.description), ["", ""]);
});
