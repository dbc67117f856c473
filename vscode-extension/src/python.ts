/**
 * Finding a Python that can run the bundled memls, and saying clearly why not.
 *
 * Without a usable Python the client would start a process that dies at
 * once and VS Code would only show "server crashed" five times. These checks
 * run first so the user gets one message naming the interpreter that was
 * tried, what is wrong with it and the setting that fixes it.
 */
import { execFile } from "node:child_process";

export const MINIMUM_PYTHON: readonly [number, number] = [3, 10];

/** Prints the interpreter's version; works on every Python from 2.6 on. */
export const VERSION_PROBE = "import sys; sys.stdout.write('%d.%d.%d' % tuple(sys.version_info[:3]))";

export type PythonProbe =
  | { kind: "ok"; version: [number, number, number] }
  | { kind: "missing"; detail: string }
  | { kind: "failed"; detail: string };

/** Runs an interpreter with VERSION_PROBE (a test double in tests). */
export type PythonProber = (interpreter: string) => Promise<PythonProbe>;

/** `3.11.7` → [3, 11, 7]; anything else → undefined. */
export function parsePythonVersion(text: string): [number, number, number] | undefined {
  const match = /^\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function isSupported(version: readonly number[]): boolean {
  const [major, minor] = version;
  return major > MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor >= MINIMUM_PYTHON[1]);
}

/** The real prober: runs the interpreter once, bounded by a timeout. */
export function probePython(interpreter: string, timeoutMs = 15000): Promise<PythonProbe> {
  return new Promise((resolve) => {
    execFile(interpreter, ["-c", VERSION_PROBE], { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "EACCES") {
          resolve({ kind: "missing", detail: code === "ENOENT" ? "not found" : "not executable" });
        } else {
          const firstLine = `${stderr}`.trim().split(/\r?\n/).pop() || error.message;
          resolve({ kind: "failed", detail: firstLine });
        }
        return;
      }
      const version = parsePythonVersion(`${stdout}`);
      resolve(version ? { kind: "ok", version } : { kind: "failed", detail: `unexpected version output '${`${stdout}`.trim()}'` });
    });
  });
}

export function formatVersion(version: readonly number[]): string {
  return version.join(".");
}

/** One sentence about an interpreter that cannot run memls (undefined when it can). */
export function pythonProblem(interpreter: string, probe: PythonProbe): string | undefined {
  const wanted = `Python ${formatVersion(MINIMUM_PYTHON)} or newer`;
  switch (probe.kind) {
    case "ok":
      return isSupported(probe.version)
        ? undefined
        : `memls needs ${wanted}, but ${interpreter} is Python ${formatVersion(probe.version)}.`;
    case "missing":
      return `memls needs ${wanted}, but ${interpreter} was ${probe.detail === "not found" ? "not found" : "not executable"}.`;
    case "failed":
      return `memls could not run ${interpreter}: ${probe.detail}`;
  }
}
