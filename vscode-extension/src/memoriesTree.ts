/**
 * The Memories view's nodes, read from the server's `memls/memories` answer,
 * and what each node looks like, without a `vscode` import so it is tested
 * under plain Node.
 *
 * The server owns the arrangement (roots, types, superseded entries under
 * their successor) and the problem counts; this module only checks the
 * shape of what came over the wire and picks labels, icons and tooltips.
 */

export interface EntryNode {
  kind: "entry";
  name: string;
  title?: string;
  description: string;
  type: string;
  status: string;
  path: string;
  errors: number;
  warnings: number;
  superseded: EntryNode[];
}

export interface TypeNode {
  kind: "type";
  type: string;
  rootPath: string;
  entries: EntryNode[];
}

export interface RootNode {
  kind: "root";
  scope: string;
  path: string;
  types: TypeNode[];
}

export type MemoryNode = RootNode | TypeNode | EntryNode;

/** What the view shows for a node; `icon` is a codicon id, `color` a theme color id. */
export interface ItemLook {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon: string;
  color?: string;
  expandable: "none" | "collapsed" | "expanded";
  /** The file a click opens (entries only). */
  open?: string;
}

// Codicons by status; "invalid" is an entry whose frontmatter does not load.
const STATUS_ICONS: Record<string, string> = {
  living: "note",
  superseded: "history",
  historical: "archive",
  invalid: "warning",
};

/** The roots of a `memls/memories` answer; anything malformed is left out, never thrown. */
export function readMemories(raw: unknown): RootNode[] {
  const roots = field(raw, "roots");
  return Array.isArray(roots) ? roots.flatMap((root) => readRoot(root)) : [];
}

function readRoot(raw: unknown): RootNode[] {
  const scope = field(raw, "scope");
  const rootPath = field(raw, "path");
  const types = field(raw, "types");
  if (typeof scope !== "string" || typeof rootPath !== "string" || !Array.isArray(types)) {
    return [];
  }
  return [{ kind: "root", scope, path: rootPath, types: types.flatMap((t) => readType(t, rootPath)) }];
}

function readType(raw: unknown, rootPath: string): TypeNode[] {
  const type = field(raw, "type");
  const entries = field(raw, "entries");
  if (typeof type !== "string" || !Array.isArray(entries)) {
    return [];
  }
  return [{ kind: "type", type, rootPath, entries: entries.flatMap(readEntry) }];
}

function readEntry(raw: unknown): EntryNode[] {
  const name = field(raw, "name");
  const entryPath = field(raw, "path");
  if (typeof name !== "string" || typeof entryPath !== "string") {
    return [];
  }
  const problems = field(raw, "problems");
  const title = field(raw, "title");
  const superseded = field(raw, "superseded");
  return [
    {
      kind: "entry",
      name,
      title: typeof title === "string" && title ? title : undefined,
      description: text(field(raw, "description")),
      type: text(field(raw, "type")),
      status: text(field(raw, "status")) || "living",
      path: entryPath,
      errors: count(field(problems, "errors")),
      warnings: count(field(problems, "warnings")),
      superseded: Array.isArray(superseded) ? superseded.flatMap(readEntry) : [],
    },
  ];
}

/** The children of a node (the roots for none). */
export function childrenOf(node: MemoryNode | undefined, roots: RootNode[]): MemoryNode[] {
  if (!node) {
    return roots;
  }
  switch (node.kind) {
    case "root":
      return node.types;
    case "type":
      return node.entries;
    case "entry":
      return node.superseded;
  }
}

/** How a node looks: entries show their status icon, problems and description; a click opens them. */
export function itemLook(node: MemoryNode): ItemLook {
  switch (node.kind) {
    case "root":
      return { id: `root:${node.path}`, label: node.scope, description: node.path, tooltip: `${node.scope} memories in ${node.path}`, icon: "folder-library", expandable: "expanded" };
    case "type": {
      const n = node.entries.length;
      return { id: `type:${node.rootPath}:${node.type}`, label: node.type, description: `${n} ${n === 1 ? "memory" : "memories"}`, icon: "symbol-folder", expandable: "expanded" };
    }
    case "entry": {
      const problems = problemText(node);
      const status = node.status === "living" ? "" : node.status;
      const tooltipLines = [node.title ? `${node.title} (${node.name})` : node.name, node.description, `type: ${node.type || "?"} · status: ${node.status}`];
      if (problems) {
        tooltipLines.push(problems);
      }
      return {
        id: `entry:${node.path}`,
        label: node.name,
        description: [status, problems].filter(Boolean).join(" · ") || undefined,
        tooltip: tooltipLines.filter(Boolean).join("\n"),
        icon: node.errors > 0 ? "error" : STATUS_ICONS[node.status] ?? "note",
        color: node.errors > 0 ? "list.errorForeground" : node.warnings > 0 ? "list.warningForeground" : undefined,
        expandable: node.superseded.length > 0 ? "collapsed" : "none",
        open: node.path,
      };
    }
  }
}

function problemText(node: EntryNode): string {
  const parts = [];
  if (node.errors > 0) {
    parts.push(`${node.errors} ${node.errors === 1 ? "error" : "errors"}`);
  }
  if (node.warnings > 0) {
    parts.push(`${node.warnings} ${node.warnings === 1 ? "warning" : "warnings"}`);
  }
  return parts.join(", ");
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
}
