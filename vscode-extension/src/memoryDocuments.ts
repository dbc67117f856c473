/**
 * Which documents are memory documents, as globs the client hands to VS Code.
 *
 * The server decides for itself what a memory root is (a `memory/` folder, a
 * Claude Code project's memory folder, a folder holding `MEMORY.md` or
 * `.memory-index.json`, a configured root). The client mirrors those rules as
 * a document selector so that VS Code sends the server memory files only and
 * every other Markdown file stays with VS Code's own Markdown support.
 */
import * as path from "node:path";
import { minimatch } from "minimatch";

/** Root rules that need no look at the disk. */
export const MEMORY_DOCUMENT_GLOBS: readonly string[] = [
  "**/memory/*.md",
  "**/.claude/projects/*/memory/*.md",
  "**/MEMORY.md",
];

/** Files whose presence makes their folder a memory root. */
export const ROOT_MARKER_GLOB = "**/{MEMORY.md,.memory-index.json}";

/** A selector entry: a glob anywhere, or the Markdown files directly in a root folder. */
export type MemoryDocumentFilter =
  | { kind: "glob"; pattern: string }
  | { kind: "root"; directory: string };

/**
 * The selector for the static root rules plus every root folder given.
 *
 * Root folders (configured roots, folders found by their marker files) are
 * absolute and deduplicated; the caller turns them into RelativePatterns so
 * that characters special to globs in a path need no escaping.
 */
export function memoryDocumentFilters(rootDirectories: readonly string[]): MemoryDocumentFilter[] {
  const filters: MemoryDocumentFilter[] = MEMORY_DOCUMENT_GLOBS.map((pattern) => ({ kind: "glob", pattern }));
  const seen = new Set<string>();
  for (const directory of rootDirectories) {
    const normal = path.resolve(directory);
    if (!seen.has(normal)) {
      seen.add(normal);
      filters.push({ kind: "root", directory: normal });
    }
  }
  return filters;
}

/**
 * Whether a file path is matched by the filters, the way VS Code matches them.
 *
 * Used to decide whether to start the server when a Markdown document opens;
 * the glob options follow VS Code's matcher (dot files are matched by `*`).
 */
export function isMemoryDocument(filePath: string, filters: readonly MemoryDocumentFilter[]): boolean {
  const normal = toSlashes(path.resolve(filePath));
  for (const filter of filters) {
    if (filter.kind === "glob") {
      if (minimatch(normal, filter.pattern, { dot: true })) {
        return true;
      }
    } else if (normal.endsWith(".md") && toSlashes(path.dirname(normal)) === toSlashes(filter.directory)) {
      return true;
    }
  }
  return false;
}

/** The folders of marker files (`MEMORY.md`, `.memory-index.json`) found in the workspace. */
export function rootsFromMarkers(markerPaths: readonly string[]): string[] {
  return [...new Set(markerPaths.map((p) => path.dirname(path.resolve(p))))].sort();
}

function toSlashes(p: string): string {
  return p.split(path.sep).join("/");
}
