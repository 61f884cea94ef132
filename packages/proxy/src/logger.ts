import { format } from "node:util";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What the proxy logs through; the reference proxy's custom loggers have this shape. */
export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
  fatal(message: string, ...args: unknown[]): void;
}

export interface DefaultLoggerOptions {
  level: LogLevel;
  /** One JSON object per line instead of a human-readable line. */
  json: boolean;
  write?: (line: string) => void;
}

/** The logger used when the host supplies none: one line per message, on stdout. */
export function createLogger({
  level,
  json,
  write = (line) => process.stdout.write(line),
}: DefaultLoggerOptions) {
  const threshold = LOG_LEVELS.indexOf(level);
  const method =
    (name: LogLevel) =>
    (message: string, ...args: unknown[]): void => {
      if (LOG_LEVELS.indexOf(name) < threshold) return;
      const time = new Date().toISOString();
      const text = format(message, ...args);
      write(
        json
          ? `${JSON.stringify({ time, level: name, name: "signalbox-proxy", msg: text })}\n`
          : `${time} ${name.toUpperCase()} ${text}\n`,
      );
    };
  return {
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    error: method("error"),
    fatal: method("fatal"),
  } satisfies Logger;
}
