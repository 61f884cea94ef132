import { Writable } from "node:stream";
import pino, { type LoggerOptions } from "pino";

export type LogFormat = "json" | "pretty";

/**
 * The same line a person reads from the proxy, `<ISO time> <LEVEL> <message>`, written
 * from pino's JSON in this thread: no transport worker for a terminal's worth of lines.
 */
function prettyStream(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) {
        if (!line) continue;
        const { time, level, msg, err } = JSON.parse(line) as {
          time: string;
          level: string;
          msg?: string;
          err?: { stack?: string };
        };
        write(`${time} ${level.toUpperCase()} ${msg ?? ""}${err?.stack ? `\n${err.stack}` : ""}\n`);
      }
      done();
    },
  });
}

/**
 * The service's logger options: one JSON object per line with `time` (ISO), `level` (its
 * name), `name` and `msg` — the fields the proxy writes — or readable lines on a terminal.
 */
export function loggerOptions(
  level: string,
  format: LogFormat,
  write: (text: string) => void = (text) => process.stdout.write(text),
): LoggerOptions & { stream?: Writable } {
  return {
    level,
    base: { name: "signalbox-server" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    ...(format === "pretty" ? { stream: prettyStream(write) } : {}),
  };
}
