import { describe, expect, test } from "vitest";
import { Backoff } from "../src/backoff.js";
import { type DropObserver, ReportBudget } from "../src/budget.js";
import { UsageMetrics } from "../src/metrics.js";
import { ClientRegistrations } from "../src/registrations.js";
import { metricsDelay } from "../src/reporter.js";
import { recordingLogger } from "./support/fixtures.js";

const ignoreDrops: DropObserver = { reportsDropped: () => {} };
const budget = (limit?: number) =>
  new ReportBudget({ logger: recordingLogger(), observer: ignoreDrops, limit });

describe("UsageMetrics", () => {
  test("counts yes, no and variants per flag, and starts a new window when taken", () => {
    const usage = new UsageMetrics(budget());
    usage.count("a", true, "blue");
    usage.count("a", true, "blue");
    usage.count("a", false);
    usage.add("b", 3, 4, { red: 2 });
    const bucket = usage.take(new Date("2030-01-01T00:00:00Z"))!;
    expect(bucket.toggles).toEqual({
      a: { yes: 2, no: 1, variants: { blue: 2 } },
      b: { yes: 3, no: 4, variants: { red: 2 } },
    });
    expect(bucket.stop).toBe("2030-01-01T00:00:00.000Z");
    expect(usage.take()).toBeUndefined();
  });

  test("a bucket put back is merged into the next one, keeping the earliest start", () => {
    const usage = new UsageMetrics(budget());
    usage.count("a", true);
    const failed = usage.take(new Date("2030-01-01T00:00:00Z"))!;
    usage.count("a", true, "v");
    usage.restore(failed);
    const next = usage.take()!;
    expect(next.toggles.a).toEqual({ yes: 2, no: 0, variants: { v: 1 } });
    expect(next.start).toBe(failed.start);
  });

  test("a flag named __proto__ is just a flag", () => {
    const usage = new UsageMetrics(budget());
    usage.count("__proto__", true);
    expect(Object.keys(usage.take()!.toggles)).toEqual(["__proto__"]);
  });

  test("the number of flags per window is bounded", () => {
    const usage = new UsageMetrics(budget());
    for (let i = 0; i < 10_050; i++) usage.count(`flag-${i}`, true);
    expect(Object.keys(usage.take()!.toggles)).toHaveLength(10_000);
  });
});

describe("ClientRegistrations", () => {
  test("keeps the latest copy per app and instance; restore does not overwrite newer ones", () => {
    const registrations = new ClientRegistrations(budget());
    registrations.add({ appName: "a", instanceId: "1", v: 1 });
    registrations.add({ appName: "a", instanceId: "1", v: 2 });
    registrations.add({ appName: "a", instanceId: "2" });
    const taken = registrations.take();
    expect(taken).toEqual([
      { appName: "a", instanceId: "1", v: 2 },
      { appName: "a", instanceId: "2" },
    ]);
    registrations.add({ appName: "a", instanceId: "1", v: 3 });
    registrations.restore(taken);
    expect(registrations.take()).toEqual([
      { appName: "a", instanceId: "1", v: 3 },
      { appName: "a", instanceId: "2" },
    ]);
  });
});

describe("ReportBudget", () => {
  test("registrations and usage share it; when full, new names are dropped and known ones still counted", () => {
    const shared = budget(200);
    const usage = new UsageMetrics(shared);
    const registrations = new ClientRegistrations(shared);
    registrations.add({ appName: "a", instanceId: "1", pad: "x".repeat(100) });
    usage.count("known", true);
    usage.count("n".repeat(100), true);
    usage.count("known", true);
    expect(shared.held).toBeLessThanOrEqual(200);
    expect(usage.take()!.toggles).toEqual({ known: { yes: 2, no: 0, variants: {} } });
    // Taking gives the room back.
    registrations.take();
    expect(shared.held).toBe(0);
    usage.count("n".repeat(100), true);
    expect(Object.keys(usage.take()!.toggles)).toEqual(["n".repeat(100)]);
  });

  test("what a failed send puts back stays within the room left", () => {
    const shared = budget(1000);
    const usage = new UsageMetrics(shared);
    for (let i = 0; i < 20; i++) usage.count(`flag-${i}`.padEnd(40, "-"), true);
    const failed = usage.take()!;
    for (let i = 0; i < 20; i++) usage.count(`new-${i}`.padEnd(40, "-"), true);
    usage.restore(failed);
    expect(shared.held).toBeLessThanOrEqual(1000);
    expect(Object.keys(usage.take()!.toggles).length).toBeLessThan(40);
  });

  test("a drop is counted each time and logged at most once a minute", () => {
    const dropped: string[] = [];
    const logger = recordingLogger();
    let now = 0;
    const shared = new ReportBudget({
      logger,
      observer: { reportsDropped: (kind, reason, count) => dropped.push(`${kind} ${reason} ${count}`) },
      limit: 10,
      now: () => now,
    });
    expect(shared.take(10, "usage")).toBe(true);
    expect(shared.take(1, "usage")).toBe(false);
    now = 59_999;
    expect(shared.take(1, "registration")).toBe(false);
    expect(logger.lines.filter((line) => line.level === "warn")).toHaveLength(1);
    now = 60_000;
    shared.take(1, "usage");
    expect(logger.lines.filter((line) => line.level === "warn")).toHaveLength(2);
    expect(dropped).toEqual(["usage full 1", "registration full 1", "usage full 1"]);
  });
});

describe("Backoff", () => {
  test("multiplies the interval by 1 + failures, at most 10, and counts down on success", () => {
    const backoff = new Backoff(100);
    expect(backoff.delay).toBe(100);
    backoff.failed();
    backoff.failed();
    expect(backoff.delay).toBe(300);
    for (let i = 0; i < 20; i++) backoff.failed();
    expect(backoff.delay).toBe(1100);
    backoff.succeeded();
    expect(backoff.delay).toBe(1000);
  });

  test("metrics wait the interval plus up to the jitter", () => {
    const backoff = new Backoff(30_000);
    expect(metricsDelay(backoff, 0, () => 0.999)).toBe(30_000);
    expect(metricsDelay(backoff, 5_000, () => 0)).toBe(30_000);
    expect(metricsDelay(backoff, 5_000, () => 0.5)).toBe(32_500);
  });
});
