/**
 * The Supersede picker: which memories can replace the open one, and what the
 * change will write, said before it is made.
 *
 * Only a living memory can be a successor (the server refuses others), so
 * living ones come first and superseded or historical ones are listed after
 * them, marked. No `vscode` import: the extension shows these.
 */
import * as path from "node:path";

export interface SuccessorCandidate {
  name: string;
  description: string;
  status: string;
  supersededBy?: string;
  location?: string;
}

export interface SuccessorChoice {
  label: string;
  description: string;
  detail?: string;
  name: string;
  living: boolean;
}

/** Living candidates by name, then the others by name, marked with their status. */
export function successorChoices(candidates: readonly SuccessorCandidate[]): SuccessorChoice[] {
  const byName = (a: SuccessorCandidate, b: SuccessorCandidate) => a.name.localeCompare(b.name);
  const living = candidates.filter((c) => c.status === "living").sort(byName);
  const others = candidates.filter((c) => c.status !== "living").sort(byName);
  return [
    ...living.map((c) => ({ label: c.name, description: c.description, name: c.name, living: true })),
    ...others.map((c) => ({
      label: `$(archive) ${c.name}`,
      description: `(${c.status}${c.supersededBy ? ` by ${c.supersededBy}` : ""})`,
      detail: "Not living: it cannot replace another memory",
      name: c.name,
      living: false,
    })),
  ];
}

/** What superseding `old` (in `oldFile`) with `successor` (in `newFile`) writes, one line per file. */
export function supersedePlan(old: string, oldFile: string, successor: string, newFile: string): string {
  return [
    `${path.basename(oldFile)}: status: superseded, superseded_by: ${successor}`,
    `${path.basename(newFile)}: supersedes gains ${old}`,
    `MEMORY.md: the line for ${old} goes (superseded memories are not listed); ${successor} keeps or gets its line`,
  ].join("\n");
}
