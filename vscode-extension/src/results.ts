/**
 * Reading what the server's commands return, and memory files' headers.
 *
 * Command results travel as plain JSON; these readers accept the documented
 * shapes and ignore anything else, so an older or newer server degrades to
 * "no results" instead of an exception in the UI.
 */
import * as path from "node:path";

export interface MemoryItem {
  name: string;
  description: string;
  /** A file path or a file URI, when the server gave one. */
  location?: string;
  /** `status` and `superseded_by`, when the frontmatter has them. */
  status?: string;
  supersededBy?: string;
}

/** `memls.recall` → items: a list, or `{results: [...]}`, of names or `{name, description, path|uri}`. */
export function recallItems(result: unknown): MemoryItem[] {
  const list = Array.isArray(result)
    ? result
    : result && typeof result === "object" && Array.isArray((result as { results?: unknown }).results)
      ? (result as { results: unknown[] }).results
      : [];
  const items: MemoryItem[] = [];
  for (const raw of list) {
    if (typeof raw === "string") {
      items.push({ name: raw, description: "" });
    } else if (raw && typeof raw === "object" && typeof (raw as { name?: unknown }).name === "string") {
      const r = raw as Record<string, unknown>;
      const location = [r.uri, r.path, r.file].find((v): v is string => typeof v === "string");
      items.push({ name: r.name as string, description: typeof r.description === "string" ? r.description : "", location });
    }
  }
  return items;
}

/** A path or `file:` URI from a command result, as a path. */
export function locationPath(location: string): string | undefined {
  if (location.startsWith("file://")) {
    const url = new URL(location);
    return decodeURIComponent(url.pathname).replace(/^\/([A-Za-z]:)/, "$1");
  }
  return path.isAbsolute(location) ? location : undefined;
}

/**
 * The `name`, `description`, `status` and `superseded_by` of a memory file's frontmatter, by a line scan.
 *
 * Enough for a quick pick of candidate names; the server does the real
 * parsing. Without a `name` key the entry is named after its file, as every
 * reader names it.
 */
export function frontmatterHeader(text: string, filePath: string): MemoryItem {
  const fallback = path.basename(filePath, ".md");
  const lines = text.replace(/^\ufeff/, "").split(/\r?\n/);
  let name: string | undefined;
  let description = "";
  const links: { status?: string; supersededBy?: string } = {};
  if (lines[0] === "---") {
    for (const line of lines.slice(1)) {
      if (line === "---" || line === "...") {
        break;
      }
      const match = /^(name|description|status|superseded_by):\s*(.*)$/.exec(line);
      if (match) {
        const value = unquote(match[2].trim());
        if (match[1] === "name") {
          name = value || undefined;
        } else if (match[1] === "description") {
          description = value;
        } else if (value) {
          links[match[1] === "status" ? "status" : "supersededBy"] = value;
        }
      }
    }
  }
  return { name: name ?? fallback, description, location: filePath, ...links };
}

function unquote(value: string): string {
  if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === '"' || value[0] === "'")) {
    const inner = value.slice(1, -1);
    return value[0] === "'" ? inner.replace(/''/g, "'") : inner.replace(/\\"/g, '"').replace(/\\\\/g, "\\");
  }
  return value;
}

/** Files in a root folder that can hold entries (not the index, reserved or hidden files). */
export function isEntryFileName(fileName: string): boolean {
  return fileName.endsWith(".md") && !fileName.startsWith(".") && !/^memory/i.test(fileName);
}
