/**
 * The server's stderr in the output channel, at the level it was logged.
 *
 * vscode-languageclient writes every stderr line as an error. The server logs
 * with Python's `logging` (`LEVEL:logger:message`), so a warning or an info
 * line would read as `[error]`. Each line is logged at its record's level;
 * lines that start no record (a traceback's) keep the level of the record
 * they belong to, and output that is not a log record at all (a crash before
 * logging started) stays an error.
 */
export type LogLevel = "error" | "warn" | "info" | "debug" | "trace";

const LEVELS: Record<string, LogLevel> = {
  CRITICAL: "error",
  ERROR: "error",
  WARNING: "warn",
  INFO: "info",
  DEBUG: "debug",
};

/** A function giving each successive stderr line its level (it remembers the last record's). */
export function stderrLevels(): (line: string) => LogLevel {
  let current: LogLevel = "error";
  return (line) => {
    const match = /^(CRITICAL|ERROR|WARNING|INFO|DEBUG):/.exec(line);
    if (match) {
      current = LEVELS[match[1]];
    } else if (!/^(\s|Traceback \(most recent call last\):|During handling|The above exception)/.test(line) && !/^\w+(\.\w+)*(Error|Exception)\b/.test(line)) {
      current = "error";
    }
    return current;
  };
}
