import { expect, test } from "vitest";
import { createLogger, type LogFormat, type LogLevel } from "../src/logger.js";

function capture(level: LogLevel, format: LogFormat) {
  const lines: string[] = [];
  const logger = createLogger({ level, format, write: (line) => lines.push(line) });
  return { logger, lines };
}

test("messages below the level are dropped", () => {
  const { logger, lines } = capture("warn", "pretty");
  logger.debug("d");
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  logger.fatal("f");
  expect(lines.map((line) => line.split(" ")[1])).toEqual(["WARN", "ERROR", "FATAL"]);
});

test("debug shows everything", () => {
  const { logger, lines } = capture("debug", "pretty");
  logger.debug("d");
  logger.info("i");
  expect(lines).toHaveLength(2);
});

test("the simple logger writes one readable line", () => {
  const { logger, lines } = capture("info", "pretty");
  logger.info("hello %s", "world");
  expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO hello world\n$/);
});

test("the JSON logger writes one object per line with the flag service's fields, in its order", () => {
  const { logger, lines } = capture("info", "json");
  logger.error("broken", new Error("boom"));
  expect(lines[0]!.endsWith("\n")).toBe(true);
  const entry = JSON.parse(lines[0]!);
  expect(Object.keys(entry)).toEqual(["level", "time", "name", "msg"]);
  expect(entry).toMatchObject({ level: "error", name: "signalbox-proxy" });
  expect(entry.msg).toContain("broken");
  expect(entry.msg).toContain("boom");
  expect(new Date(entry.time).toISOString()).toBe(entry.time);
});
