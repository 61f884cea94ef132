import { format as formatMessage } from "node:util";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json`: one object per line, for collectors; `pretty`: `<ISO time> <LEVEL> <message>`, for people. */
export type LogFormat = "json" | "pretty";

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
  format: LogFormat;
  write?: (line: string) => void;
}

/**
 * The logger used when the host supplies none, on stdout. Its JSON lines carry the flag
 * service's fields in the service's order (`level` by name, `time` in ISO, `name`, `msg`),
 * so one collector query covers both.
 */
export function createLogger({
  level,
  format,
  write = (line) => process.stdout.write(line),
}: DefaultLoggerOptions) {
  const threshold = LOG_LEVELS.indexOf(level);
  const method =
    (name: LogLevel) =>
    (message: string, ...args: unknown[]): void => {
      if (LOG_LEVELS.indexOf(name) < threshold) return;
      const time = new Date().toISOString();
      const msg = formatMessage(message, ...args);
      write(
        format === "json"
          ? `${JSON.stringify({ level: name, time, name: "signalbox-proxy", msg })}\n`
          : `${time} ${name.toUpperCase()} ${msg}\n`,
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
