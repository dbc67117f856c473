/**
 * Which process to start as the memls server, decided in a fixed order.
 *
 * An installed memls is the one the user's `memls` command line runs (same
 * version, same answers as their hooks and CI), so it wins over the memls
 * bundled with the extension:
 *
 * 1. `memls.server.path`: a memls executable the user chose;
 * 2. `memls` on PATH;
 * 3. `memls.server.interpreter`: a Python the user chose, running the bundled memls;
 * 4. the Python extension's selected interpreter, running the bundled memls;
 * 5. `python3` (`python` on Windows), running the bundled memls.
 *
 * A choice the user made in settings (1, 3) that does not work is an error
 * with a message; it never falls through silently to something else.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PythonProber, pythonProblem } from "./python";

export type ServerSource = "server.path" | "PATH" | "server.interpreter" | "python-extension" | "default-python";

export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
}

export type FixSetting = "memls.server.path" | "memls.server.interpreter";

export type Resolution =
  | { ok: true; server: ServerCommand; notes: string[] }
  | { ok: false; message: string; fix: FixSetting };

export interface ResolutionInputs {
  /** `memls.server.path`, variables expanded ("" when unset). */
  serverPath: string;
  /** `memls.server.interpreter`, variables expanded ("" when unset). */
  interpreter: string;
  /** The bundled `bundled/tool/server.py`. */
  bundledServerScript: string;
  findExecutable: (name: string) => string | undefined;
  pythonExtensionInterpreter: () => Promise<string | undefined>;
  probe: PythonProber;
  isFile: (p: string) => boolean;
  platform: NodeJS.Platform;
}

export function defaultPython(platform: NodeJS.Platform): string {
  return platform === "win32" ? "python" : "python3";
}

export async function resolveServerCommand(inputs: ResolutionInputs): Promise<Resolution> {
  const notes: string[] = [];
  if (inputs.serverPath) {
    if (!inputs.isFile(inputs.serverPath)) {
      return {
        ok: false,
        message: `memls.server.path is set to ${inputs.serverPath}, which is not a file.`,
        fix: "memls.server.path",
      };
    }
    return { ok: true, server: { command: inputs.serverPath, args: ["serve"], source: "server.path" }, notes };
  }
  const onPath = inputs.findExecutable("memls");
  if (onPath) {
    return { ok: true, server: { command: onPath, args: ["serve"], source: "PATH" }, notes };
  }
  const bundled = (python: string, source: ServerSource): Resolution => ({
    ok: true,
    server: { command: python, args: [inputs.bundledServerScript], source },
    notes,
  });
  if (inputs.interpreter) {
    const problem = pythonProblem(inputs.interpreter, await inputs.probe(inputs.interpreter));
    if (problem) {
      return { ok: false, message: `${problem} Set memls.server.interpreter to a Python 3.10+ interpreter.`, fix: "memls.server.interpreter" };
    }
    return bundled(inputs.interpreter, "server.interpreter");
  }
  const selected = await inputs.pythonExtensionInterpreter();
  if (selected) {
    const problem = pythonProblem(selected, await inputs.probe(selected));
    if (!problem) {
      return bundled(selected, "python-extension");
    }
    notes.push(`The Python extension's interpreter was not used: ${problem}`);
  }
  const fallback = defaultPython(inputs.platform);
  const problem = pythonProblem(fallback, await inputs.probe(fallback));
  if (problem) {
    return {
      ok: false,
      message: `${[...notes, problem].join(" ")} Install Python 3.10+, or set memls.server.interpreter to one (or memls.server.path to a memls executable).`,
      fix: "memls.server.interpreter",
    };
  }
  return bundled(fallback, "default-python");
}

/** The first executable called `name` on PATH (with PATHEXT on Windows). */
export function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? "").split(platform === "win32" ? ";" : ":").filter(Boolean);
  const extensions = platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext.toLowerCase());
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) {
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

export function describeServer(server: ServerCommand): string {
  const where: Record<ServerSource, string> = {
    "server.path": "memls.server.path",
    PATH: "memls on PATH",
    "server.interpreter": "bundled memls, memls.server.interpreter",
    "python-extension": "bundled memls, the Python extension's interpreter",
    "default-python": "bundled memls",
  };
  return `${[server.command, ...server.args].join(" ")} (${where[server.source]})`;
}
