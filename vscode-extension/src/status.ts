/**
 * The status item: what the server's `memls/status` notification says, as
 * one status bar entry, and the actions a click on it offers.
 *
 * The server sends the notification after every check (a keystroke, a save
 * from another program, a file removed, a folder added) and during the first
 * scan, so the item never polls and never goes stale. This module has no
 * `vscode` import: the extension turns its results into the item.
 */

/** The payload of `memls/status` (see memls.lsp.status on the server). */
export interface ServerStatus {
  memories: number;
  errors: number;
  warnings: number;
  roots: number;
  scanning: boolean;
  scanned: number;
  total: number;
}

/** A notification's params as a status; anything else (an older or newer server) is ignored. */
export function readStatus(params: unknown): ServerStatus | undefined {
  if (!params || typeof params !== "object") {
    return undefined;
  }
  const p = params as Record<string, unknown>;
  const count = (key: string): number | undefined => {
    const value = p[key];
    return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
  };
  const [memories, errors, warnings] = [count("memories"), count("errors"), count("warnings")];
  if (memories === undefined || errors === undefined || warnings === undefined) {
    return undefined;
  }
  return {
    memories,
    errors,
    warnings,
    roots: count("roots") ?? 0,
    scanning: p.scanning === true,
    scanned: count("scanned") ?? 0,
    total: count("total") ?? 0,
  };
}

export interface StatusView {
  text: string;
  tooltip: string;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The item for a status.
 *
 * Scanning: `$(sync~spin) memls: indexing 2500/3001`. Then
 * `$(book) memls: 13 memories`, followed by `$(error) 2` and `$(warning) 5`
 * when there are errors or warnings (either is left out at zero).
 */
export function statusView(status: ServerStatus, server: string): StatusView {
  const actions = "Click for memls actions.";
  if (status.scanning) {
    const progress = status.total > 0 ? ` ${status.scanned}/${status.total}` : "";
    return {
      text: `$(sync~spin) memls: indexing${progress}`,
      tooltip: `Reading the memory files${progress ? ` (${status.scanned} of ${status.total})` : ""}; ${plural(status.memories, "memory", "memories")} so far.\n${server}\n${actions}`,
    };
  }
  const problems = [status.errors > 0 ? `$(error) ${status.errors}` : "", status.warnings > 0 ? `$(warning) ${status.warnings}` : ""].filter(Boolean);
  return {
    text: [`$(book) memls: ${plural(status.memories, "memory", "memories")}`, ...problems].join(" "),
    tooltip:
      `${plural(status.memories, "memory", "memories")} in ${plural(status.roots, "root", "roots")}; ` +
      `${plural(status.errors, "error", "errors")}, ${plural(status.warnings, "warning", "warnings")} in memory files.\n${server}\n${actions}`,
  };
}

/** One entry of the quick pick a click on the item opens. */
export interface StatusAction {
  label: string;
  description: string;
  command: string;
}

/** What a click on the status item offers, in this order. */
export const STATUS_ACTIONS: readonly StatusAction[] = [
  { label: "$(add) New memory…", description: "Create a memory file and open it", command: "memls.palette.newMemory" },
  { label: "$(search) Recall…", description: "Find a memory by its words", command: "memls.palette.recall" },
  { label: "$(list-unordered) Regenerate MEMORY.md", description: "Rewrite the index of the open memory's root", command: "memls.palette.regenerateIndex" },
  { label: "$(warning) Show problems", description: "The Problems panel", command: "workbench.actions.view.problems" },
  { label: "$(output) Show server output", description: "Version, roots, scan time, errors", command: "memls.showOutput" },
  { label: "$(debug-restart) Restart server", description: "Start the memls server again", command: "memls.restartServer" },
];
