import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { ReportBudget } from "../src/budget.js";
import { UsageMetrics } from "../src/metrics.js";
import { ClientRegistrations } from "../src/registrations.js";
import { UsageReporter } from "../src/reporter.js";
import type { PostResult, Upstream } from "../src/upstream.js";
import { recordingLogger } from "./support/fixtures.js";

// The reporter's schedule, on fake timers: what is asserted is the order of events, not wall time.

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function reporterWith(metricsJitter: number, answer: () => PostResult = () => ({ outcome: "sent" })) {
  const sent: unknown[] = [];
  const upstream = {
    register: async () => answer(),
    sendMetrics: async (body: unknown) => {
      sent.push(body);
      return answer();
    },
  } as unknown as Upstream;
  const logger = recordingLogger();
  const observer = { reportsDropped: () => {} };
  const budget = new ReportBudget({ logger, observer });
  const usage = new UsageMetrics(budget);
  const reporter = new UsageReporter({
    upstream,
    usage,
    registrations: new ClientRegistrations(budget),
    appName: "proxy",
    instanceId: "i",
    connectionId: "c",
    strategies: [],
    metricsInterval: 1000,
    metricsJitter,
    logger,
    observer,
    random: () => 0.999,
  });
  return { reporter, usage, sent, logger };
}

test("metrics leave every metricsInterval plus the jitter", async () => {
  const { reporter, usage, sent } = reporterWith(500);
  reporter.start();
  usage.count("a", true);
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(0);
  await vi.advanceTimersByTimeAsync(500);
  expect(sent).toHaveLength(1);
  usage.count("a", true);
  await vi.advanceTimersByTimeAsync(1500);
  expect(sent).toHaveLength(2);
  await reporter.stop();
});

test("without jitter, exactly every metricsInterval; an empty window sends nothing", async () => {
  const { reporter, usage, sent } = reporterWith(0);
  reporter.start();
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(0);
  usage.count("a", false);
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(1);
  await reporter.stop();
});

test("after a failure the next try waits longer, and carries the counts again", async () => {
  let fail = true;
  const { reporter, usage, sent } = reporterWith(0, () =>
    fail ? { outcome: "failed", reason: "HTTP 503" } : { outcome: "sent" },
  );
  reporter.start();
  usage.count("a", true);
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(1);
  fail = false;
  // One failed round: the next one is two intervals away.
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(1);
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(2);
  expect((sent[1] as { bucket: { toggles: object } }).bucket.toggles).toEqual({
    a: { yes: 1, no: 0, variants: {} },
  });
  await reporter.stop();
});

test("a bucket the upstream refuses with a 4xx is dropped with one log line, not sent again", async () => {
  let answer: PostResult = { outcome: "refused", status: 413 };
  const { reporter, usage, sent, logger } = reporterWith(0, () => answer);
  reporter.start();
  usage.count("a", true);
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(1);
  expect(logger.lines.filter((line) => line.message.includes("send usage metrics (HTTP 413)"))).toHaveLength(
    1,
  );
  answer = { outcome: "sent" };
  usage.count("b", true);
  // No backoff: the next try is one interval away, and carries only what was counted since.
  await vi.advanceTimersByTimeAsync(1000);
  expect(sent).toHaveLength(2);
  expect(Object.keys((sent[1] as { bucket: { toggles: object } }).bucket.toggles)).toEqual(["b"]);
  await reporter.stop();
});
