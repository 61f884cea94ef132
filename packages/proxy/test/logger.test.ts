import { expect, test } from "vitest";
import { createLogger } from "../src/logger.js";

function capture(level: Parameters<typeof createLogger>[0]["level"], json: boolean) {
  const lines: string[] = [];
  const logger = createLogger({ level, json, write: (line) => lines.push(line) });
  return { logger, lines };
}

test("messages below the level are dropped", () => {
  const { logger, lines } = capture("warn", false);
  logger.debug("d");
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  logger.fatal("f");
  expect(lines.map((line) => line.split(" ")[1])).toEqual(["WARN", "ERROR", "FATAL"]);
});

test("debug shows everything", () => {
  const { logger, lines } = capture("debug", false);
  logger.debug("d");
  logger.info("i");
  expect(lines).toHaveLength(2);
});

test("the simple logger writes one readable line", () => {
  const { logger, lines } = capture("info", false);
  logger.info("hello %s", "world");
  expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO hello world\n$/);
});

test("the JSON logger writes one JSON object per line", () => {
  const { logger, lines } = capture("info", true);
  logger.error("broken", new Error("boom"));
  expect(lines[0]!.endsWith("\n")).toBe(true);
  const entry = JSON.parse(lines[0]!);
  expect(entry).toMatchObject({ level: "error", name: "signalbox-proxy" });
  expect(entry.msg).toContain("broken");
  expect(entry.msg).toContain("boom");
  expect(Date.parse(entry.time)).not.toBeNaN();
});
