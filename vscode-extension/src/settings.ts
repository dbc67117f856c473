/**
 * The extension's `memls.*` settings and the shape the server reads.
 *
 * The server takes the same table as `[tool.memls]` in `pyproject.toml`
 * (`severity`, `roots`, `index.on_save`), once in `initializationOptions`
 * and again on every `workspace/didChangeConfiguration`. Client-only
 * settings (`server.*`, `trace.*`) are not sent: the server reports unknown
 * keys as warnings, and they mean nothing to it.
 */
import * as os from "node:os";
import * as path from "node:path";

export const SECTION = "memls";
export const INDEX_ON_SAVE = ["auto", "regenerate", "off"] as const;
export const SEVERITIES = ["off", "hint", "information", "warning", "error"] as const;
export type IndexOnSave = (typeof INDEX_ON_SAVE)[number];

/** Reads one `memls.*` value (VS Code's WorkspaceConfiguration.get, or a test double). */
export type ConfigurationReader = (key: string) => unknown;

export interface ServerSettings {
  severity: Record<string, string>;
  roots: string[];
  index: { onSave: IndexOnSave };
}

export interface VariableContext {
  /** The first workspace folder, if any. */
  workspaceFolder?: string;
  home?: string;
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~` expanded, as in the Python tools template. */
export function expandVariables(value: string, context: VariableContext): string {
  const home = context.home ?? os.homedir();
  let result = value.replace(/\$\{userHome\}/g, home);
  if (context.workspaceFolder !== undefined) {
    result = result.replace(/\$\{workspaceFolder\}/g, context.workspaceFolder);
  }
  if (result === "~" || result.startsWith("~/") || result.startsWith("~\\")) {
    result = path.join(home, result.slice(1));
  }
  return result;
}

/** The server's settings table from the editor's `memls.*` settings. */
export function serverSettings(read: ConfigurationReader, context: VariableContext = {}): ServerSettings {
  const rawSeverity = read("severity");
  const severity: Record<string, string> = {};
  if (rawSeverity && typeof rawSeverity === "object" && !Array.isArray(rawSeverity)) {
    for (const [code, value] of Object.entries(rawSeverity as Record<string, unknown>)) {
      // A bad value is passed on as it is: the server names it in a warning.
      if (typeof value === "string") {
        severity[code] = value;
      }
    }
  }
  const rawRoots = read("roots");
  const roots = Array.isArray(rawRoots)
    ? rawRoots.filter((r): r is string => typeof r === "string" && r.trim() !== "").map((r) => expandVariables(r.trim(), context))
    : [];
  const rawOnSave = read("index.onSave");
  const onSave = (INDEX_ON_SAVE as readonly unknown[]).includes(rawOnSave) ? (rawOnSave as IndexOnSave) : "auto";
  return { severity, roots, index: { onSave } };
}

/**
 * What the client sends in `initialize`: the settings, and what VS Code does itself
 * that the server would otherwise duplicate (its Markdown support outlines headings).
 */
export function initializationOptions(
  read: ConfigurationReader,
  context: VariableContext = {},
): { settings: ServerSettings; client: { markdownOutline: boolean; memoriesView: boolean; statusNotification: boolean } } {
  // memoriesView: the Explorer's Memories view wants memls/memoriesChanged.
  // statusNotification: the server sends `memls/status` after every change (the status item).
  return {
    settings: serverSettings(read, context),
    client: { markdownOutline: true, memoriesView: true, statusNotification: true },
  };
}

/** Configured roots as absolute folders, relative ones taken from the first workspace folder (as the server does). */
export function absoluteRoots(settings: ServerSettings, context: VariableContext): string[] {
  return settings.roots.map((root) =>
    path.isAbsolute(root) || context.workspaceFolder === undefined ? path.resolve(root) : path.resolve(context.workspaceFolder, root),
  );
}

/** Whether a configuration change needs a new server process rather than a settings update. */
export function needsRestart(affects: (key: string) => boolean): boolean {
  return ["server.path", "server.interpreter", "roots"].some((key) => affects(`${SECTION}.${key}`));
}
