import assert from "node:assert/strict";
import { test } from "node:test";
import { successorChoices, supersedePlan } from "../src/supersedePlan";

test("living memories come first; superseded and historical ones after, marked", () => {
  const choices = successorChoices([
    { name: "zeta", description: "z", status: "living" },
    { name: "old", description: "o", status: "superseded", supersededBy: "zeta" },
    { name: "alpha", description: "a", status: "living" },
    { name: "gone", description: "g", status: "historical" },
  ]);
  assert.deepEqual(choices.map((c) => [c.name, c.living]), [["alpha", true], ["zeta", true], ["gone", false], ["old", false]]);
  assert.equal(choices[2].description, "(historical)");
  assert.equal(choices[3].description, "(superseded by zeta)");
  assert.match(choices[3].detail ?? "", /cannot replace/);
});

test("the plan names both files and the index line", () => {
  const plan = supersedePlan("use-pip", "/m/use-pip.md", "use-uv", "/m/use-uv.md");
  assert.deepEqual(plan.split("\n").map((l) => l.split(":")[0]), ["use-pip.md", "use-uv.md", "MEMORY.md"]);
  assert.match(plan, /use-pip\.md: status: superseded, superseded_by: use-uv/);
  assert.match(plan, /use-uv\.md: supersedes gains use-pip/);
});
