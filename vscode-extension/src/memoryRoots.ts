/**
 * Where *New memory…* writes when no memory is open: the roots the server
 * knows (`memls.debugInfo`), offered by folder and layer, the last choice first.
 *
 * Writing silently into the first folder's root surprises whoever works in a
 * multi-root workspace or keeps memories in Claude Code's folder; with more
 * than one root the user picks. No `vscode` import: the extension shows the
 * choices and keeps the last one in its workspace state.
 */
import * as path from "node:path";

export interface MemoryRootInfo {
  scope: string;
  path: string;
  entries: number;
}

/** The layer names a user knows the scopes by. */
const LAYERS: Record<string, string> = {
  explicit: "configured root",
  project: "project",
  cc: "Claude Code",
  agent: "agent workspace",
  user: "user",
};

/** `memls.debugInfo`'s roots; junk is ignored. */
export function serverRoots(info: unknown): MemoryRootInfo[] {
  const roots = info && typeof info === "object" ? (info as { roots?: unknown }).roots : undefined;
  if (!Array.isArray(roots)) {
    return [];
  }
  const out: MemoryRootInfo[] = [];
  for (const raw of roots) {
    if (raw && typeof raw === "object" && typeof raw.path === "string" && typeof raw.scope === "string") {
      out.push({ scope: raw.scope, path: raw.path, entries: typeof raw.entries === "number" ? raw.entries : 0 });
    }
  }
  return out;
}

export interface RootChoice {
  label: string;
  description: string;
  detail: string;
  root: string;
}

/**
 * The quick pick items: `<folder>: <layer>` for roots inside a workspace
 * folder, `<layer>` for the others (Claude Code's, the user's), each with its
 * path and count; the last root chosen comes first.
 */
export function rootChoices(roots: readonly MemoryRootInfo[], folders: readonly string[], last: string | undefined): RootChoice[] {
  const choices = roots.map((root) => {
    const layer = LAYERS[root.scope] ?? root.scope;
    const folder = folders.find((f) => isWithin(root.path, f));
    return {
      label: folder ? `${path.basename(folder)}: ${layer}` : layer,
      description: root.path === last ? "last used" : "",
      detail: `${root.path} (${root.entries} ${root.entries === 1 ? "memory" : "memories"})`,
      root: root.path,
    };
  });
  const lastIndex = choices.findIndex((c) => c.root === last);
  if (lastIndex > 0) {
    choices.unshift(...choices.splice(lastIndex, 1));
  }
  return choices;
}

function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
