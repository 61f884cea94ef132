import { afterEach, expect, test } from "vitest";
import { PENDING_REPORTS_BYTES } from "../src/budget.js";
import type { ProxyOptions, SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, eventually, flagDocument, recordingLogger, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

// Client keys are public in browser apps: what anyone may post for registration and usage
// must not let them park memory in the proxy or make it hammer the upstream.

const METRICS = "/api/client/metrics";
const REGISTER = "/api/client/register";
const MB = 1024 * 1024;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** A fake upstream that refuses every registration and report as too large, as the flag service does past its body limit. */
async function refusingUpstream(): Promise<FakeUpstream> {
  const upstream = await FakeUpstream.start(flagDocument());
  upstream.faults.set(REGISTER, 413);
  upstream.faults.set(METRICS, 413);
  upstream.keepBodiesUpTo = 64 * 1024;
  cleanup.push(() => upstream.close());
  return upstream;
}

async function listeningProxy(upstream: FakeUpstream, options: ProxyOptions = {}) {
  const proxy: SignalboxProxy = await startProxy(upstream, { logger: recordingLogger(), ...options });
  cleanup.push(() => proxy.close());
  const address = await proxy.listen({ port: 0, host: "127.0.0.1" });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${address}${path}`, {
      method: "POST",
      headers: { authorization: CLIENT_KEY, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  return { proxy, post, log: proxy.config.logger as ReturnType<typeof recordingLogger> };
}

/** Heap in use after a full collection, when the worker runs with --expose-gc. */
function heapUsed(): number {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed;
}

const usageReport = (toggles: Record<string, { yes: number; no: number }>) => ({
  appName: "web",
  instanceId: "browser",
  bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles },
});

const registration = (instanceId: string) => ({
  appName: "web",
  instanceId,
  interval: 1000,
  started: new Date().toISOString(),
  strategies: ["default"],
});

const sizeSent = (upstream: FakeUpstream, path: string) =>
  upstream.requestsTo(path).reduce((sum, request) => sum + request.size, 0);
const sentWith = (upstream: FakeUpstream, path: string, text: string) =>
  upstream.requestsTo(path).filter((request) => request.body.includes(text)).length;

test("a burst of 1 MB registrations leaves the proxy's memory and what the upstream receives bounded", async () => {
  const upstream = await refusingUpstream();
  const { post } = await listeningProxy(upstream, { metricsInterval: 200 });
  const before = heapUsed();
  const rssBefore = process.memoryUsage().rss;

  // 1 MB (just under Fastify's default body limit of 1 MiB) of properties no SDK sends.
  const junk = "x".repeat(1_000_000);
  const statuses = new Map<number, number>();
  for (let i = 0; i < 300; i++) {
    const { status } = await post("/proxy/client/register", { ...registration(`burst-${i}`), junk });
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  // An ordinary registration and usage report among the junk: the upstream refuses them too
  // (413), and they must not come back.
  expect((await post("/proxy/client/register", registration("ordinary"))).status).toBe(200);
  expect((await post("/proxy/client/metrics", usageReport({ ordinary: { yes: 1, no: 0 } }))).status).toBe(
    200,
  );

  // Ten intervals: time to forward, be refused, and (if the proxy retried) send again.
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const registrations = upstream.requestsTo(REGISTER).length;
  const receivedBytes = sizeSent(upstream, REGISTER);
  const ordinaryTries = sentWith(upstream, REGISTER, '"ordinary"');
  const usageTries = sentWith(upstream, METRICS, '"ordinary"');
  upstream.requests.splice(0); // what the fake upstream recorded is not the proxy's memory
  const grown = heapUsed() - before;
  const rssGrown = process.memoryUsage().rss - rssBefore;
  console.info(
    `burst: statuses ${JSON.stringify([...statuses])}; heapUsed +${(grown / MB).toFixed(1)} MB, ` +
      `rss +${(rssGrown / MB).toFixed(1)} MB (gc ${global.gc ? "forced" : "unavailable"}); ` +
      `upstream received ${registrations} registrations, ${(receivedBytes / MB).toFixed(1)} MB; ` +
      `the refused ordinary registration was sent ${ordinaryTries} time(s), the usage report ${usageTries}`,
  );

  expect(grown).toBeLessThan(20 * MB);
  expect(receivedBytes).toBeLessThan(MB);
  expect(ordinaryTries).toBe(1);
  expect(usageTries).toBe(1);
}, 120_000);

test("while the upstream fails (5xx), registrations within the limits are retried in at most the room for pending reports", async () => {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  upstream.faults.set(REGISTER, 503);
  const { proxy, post, log } = await listeningProxy(upstream, { metricsInterval: 100 });
  const before = heapUsed();

  // Each about 90 kB: every string and list within its limit, the body within 100 kB.
  const strategies = Array.from({ length: 350 }, (_, i) => `${i}`.padEnd(255, "s"));
  const bodies = 300;
  for (let i = 0; i < bodies; i++) {
    const response = await post("/proxy/client/register", { ...registration(`fill-${i}`), strategies });
    expect(response.status).toBe(200);
  }
  const size = JSON.stringify({ ...registration("fill-0"), strategies }).length;
  const tries = () => {
    const counts = new Map<string, number>();
    for (const request of upstream.requestsTo(REGISTER)) {
      const id = /"instanceId":"(fill-\d+)"/.exec(request.body)?.[1];
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  await eventually(() => expect(Math.max(...tries().values())).toBeGreaterThan(1), 15_000);

  const forwarded = tries().size;
  upstream.requests.splice(0);
  const grown = heapUsed() - before;
  console.info(
    `fill: ${bodies} registrations of ${(size / 1024).toFixed(0)} kB accepted, ${forwarded} of them ` +
      `forwarded and retried; heapUsed +${(grown / MB).toFixed(1)} MB`,
  );

  expect(forwarded).toBeLessThan(bodies);
  expect(grown).toBeLessThan(20 * MB);
  const warnings = log.lines.filter((line) =>
    line.message.includes("new client registrations and flag counts"),
  );
  expect(warnings).toHaveLength(1);
  const scrape = await proxy.app.inject({ method: "GET", url: "/proxy/internal-backstage/prometheus" });
  const dropped = /^proxy_reports_dropped_total\{kind="registration",reason="full"\} (\d+)$/m.exec(
    scrape.body,
  );
  expect(Number(dropped?.[1])).toBeGreaterThanOrEqual(bodies - Math.ceil(PENDING_REPORTS_BYTES / size));
}, 60_000);

test("an SDK's registration is forwarded as sent, without the fields the protocol does not define", async () => {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  const { post } = await listeningProxy(upstream, { metricsInterval: 50 });
  // What unleash-client-node sends, and what an OpenFeature provider adds.
  const sent = {
    appName: "checkout",
    instanceId: "pod-7",
    connectionId: "4b1c2f3e-2a4d-4e5f-8a9b-0c1d2e3f4a5b",
    sdkVersion: "unleash-client-node:6.6.0",
    strategies: ["default", "userWithId", "flexibleRollout", "remoteAddress"],
    started: "2030-01-01T00:00:00.000Z",
    interval: 10_000,
    platformName: "node",
    platformVersion: "22.1.0",
    yggdrasilVersion: null,
    specVersion: "5.2.0",
    sdkFlavor: "unleash-openfeature-node-provider",
    sdkFlavorVersion: "0.5.0",
    environment: "production",
  };
  const response = await post("/proxy/client/register", {
    ...sent,
    notes: "x".repeat(10_000),
    extra: { a: 1 },
  });
  expect(response).toEqual({ status: 200, text: "OK" });
  const forwarded = await upstream.waitFor((request) => request.body.includes('"pod-7"'));
  expect(JSON.parse(forwarded.body)).toEqual(sent);
});

test("registrations and usage reports over the limits are refused with the proxy's error body", async () => {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  const { proxy, post } = await listeningProxy(upstream, { metricsInterval: 60_000 });
  const long = "n".repeat(256);
  const manyToggles = Object.fromEntries(
    Array.from({ length: 1001 }, (_, i) => [`f${i}`, { yes: 1, no: 0 }]),
  );

  for (const path of ["/proxy/client/register", "/proxy/client/metrics", "/proxy/all/client/metrics"]) {
    const tooLarge = await post(path, {
      ...registration("big"),
      ...usageReport({}),
      padding: "x".repeat(110_000),
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.text)).toEqual({
      error: "The request body is larger than the proxy accepts here (102400 bytes).",
    });
  }
  const refusals = [
    ["/proxy/client/register", { ...registration("long-name"), appName: long }, "/appName"],
    [
      "/proxy/client/register",
      { ...registration("many"), strategies: Array(1001).fill("default") },
      "/strategies",
    ],
    ["/proxy/client/metrics", { ...usageReport({}), sdkVersion: long }, "/sdkVersion"],
    ["/proxy/client/metrics", usageReport({ [long]: { yes: 1, no: 0 } }), "/bucket/toggles"],
    ["/proxy/client/metrics", usageReport(manyToggles), "/bucket/toggles"],
  ] as const;
  for (const [path, body, field] of refusals) {
    const response = await post(path, body);
    expect(response.status).toBe(400);
    const error = JSON.parse(response.text);
    expect(error.error).toMatch(
      new RegExp(`^Request validation failed: body${field} must NOT have more than`),
    );
    expect(error.validation[0].instancePath).toBe(field);
  }

  // Refused means not kept: closing sends what is pending, and none of it is there.
  await proxy.close();
  const sent = upstream.requests
    .filter((request) => request.method === "POST")
    .map((request) => request.body);
  expect(
    sent.some((body) => body.includes(long) || body.includes('"many"') || body.includes('"f1000"')),
  ).toBe(false);
});
