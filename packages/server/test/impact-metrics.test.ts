import { InMemStorageProvider, Unleash } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { sessionOf } from "./support/people.js";
import { CLIENT_TOKEN, FRONTEND_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// Impact metrics as the published Node SDK sends them (6.12: counters and histograms as
// what changed since its last report, gauges as values), stored per series, aggregated for
// safeguards and charts, and shown to Prometheus; within limits set low here.

const DAY = 86_400_000;
const LIMITS = { maxMetrics: 5, maxSeriesPerMetric: 3, retentionMs: 7 * DAY, resolutionSeconds: 1 };

/** The value of one sample line in Prometheus text, found by its exact labels text. */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(databaseKinds)("impact metrics (%s)", (kind) => {
  let server: TestServer;
  let sdk: Unleash;
  const warnings: string[] = [];
  const aggregate = (
    metricName: string,
    aggregationMode: "rps" | "count" | "avg" | "sum" | "p50" | "p95" | "p99",
    labelSelectors: Record<string, string[]> = {},
    windowMs = 60_000,
  ) => server.services.impactMetrics.aggregate({ metricName, aggregationMode, labelSelectors, windowMs });
  const report = (
    impactMetrics: unknown,
    options: { token?: string; path?: string; appName?: string } = {},
  ) =>
    server.request(options.path ?? "/api/client/metrics", {
      method: "POST",
      token: options.token ?? CLIENT_TOKEN,
      body: { appName: options.appName ?? "raw-app", instanceId: "i-1", bucket: null, impactMetrics },
    });
  const counter = (name: string, samples: { labels?: Record<string, string>; value: number }[]) => ({
    name,
    help: `${name} help`,
    type: "counter",
    samples,
  });

  beforeAll(async () => {
    server = await startTestServer(kind, undefined, { impactMetrics: LIMITS });
    server.services.impactMetrics.start({ warn: (_, message) => warnings.push(message), error: () => {} });
    const created = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "new-checkout" },
    });
    expect(created.status).toBe(200);
    const env = "/api/admin/projects/default/features/new-checkout/environments/development";
    expect(
      (await server.request(`${env}/strategies`, { method: "POST", body: { name: "default" } })).status,
    ).toBe(200);
    expect((await server.request(`${env}/on`, { method: "POST" })).status).toBe(200);

    sdk = new Unleash({
      appName: "shop",
      url: `${server.url}/api`,
      customHeaders: { Authorization: CLIENT_TOKEN },
      refreshInterval: 100,
      metricsInterval: 200,
      storageProvider: new InMemStorageProvider(),
    });
    sdk.on("error", () => {});
    sdk.on("warn", () => {});
    await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
    const { impactMetrics } = sdk;
    impactMetrics.defineCounter("purchases", "Purchases made");
    impactMetrics.defineGauge("queue-depth", "Jobs waiting");
    impactMetrics.defineHistogram("checkout_seconds", "Checkout time", [0.1, 0.5, 1]);
    const flagged = { flagNames: ["new-checkout"], context: {} };
    impactMetrics.incrementCounter("purchases", 3);
    impactMetrics.incrementCounter("purchases", 2, flagged);
    impactMetrics.updateGauge("queue-depth", 7);
    impactMetrics.updateGauge("queue-depth", 11);
    for (const seconds of [0.05, 0.3, 0.3, 0.7, 2])
      impactMetrics.observeHistogram("checkout_seconds", seconds);
    await until(
      async () => [await aggregate("purchases", "count"), await aggregate("checkout_seconds", "count")],
      ([purchases, observations]) => purchases === 5 && observations === 5,
      "the SDK's report",
    );
  });

  afterAll(async () => {
    sdk?.destroy();
    server.services.impactMetrics.stop();
    await server?.close();
  });

  it("aggregates what the SDK sent: counters' increases, gauges' last values, histograms' quantiles", async () => {
    expect(await aggregate("unleash_counter_purchases", "count")).toBe(5);
    expect(await aggregate("unleash_counter_purchases", "rps")).toBeCloseTo(5 / 60);
    // The flag's label is its name made a label name; its value what the flag was for the context.
    expect(await aggregate("unleash_counter_purchases", "count", { new_checkout: ["enabled"] })).toBe(2);
    expect(
      await aggregate("unleash_counter_purchases", "count", { new_checkout: ["disabled"] }),
    ).toBeUndefined();
    expect(await aggregate("unleash_counter_purchases", "count", { new_checkout: ["*"] })).toBe(5);
    expect(await aggregate("unleash_counter_purchases", "count", { environment: [] })).toBe(5);
    expect(
      await aggregate("unleash_counter_purchases", "count", {
        environment: ["development"],
        appName: ["shop"],
      }),
    ).toBe(5);
    expect(await aggregate("unleash_gauge_queue_depth", "avg")).toBe(11);
    expect(await aggregate("unleash_gauge_queue_depth", "sum")).toBe(11);
    // Buckets 0.1: 1, 0.5: 3, 1: 4, +Inf: 5. The median falls in (0.1, 0.5]: 0.1 + 0.4 × 1.5/2.
    expect(await aggregate("unleash_histogram_checkout_seconds", "p50")).toBeCloseTo(0.4);
    // Past the last finite bound: that bound, as Prometheus answers.
    expect(await aggregate("unleash_histogram_checkout_seconds", "p95")).toBe(1);
    expect(await aggregate("unleash_histogram_checkout_seconds", "count")).toBe(5);
    // Nothing to aggregate: no such metric, an aggregation that is not a counter's, no points in the window.
    expect(await aggregate("unleash_counter_ghost", "count")).toBeUndefined();
    expect(await aggregate("unleash_counter_purchases", "avg")).toBeUndefined();
    expect(
      await server.services.impactMetrics.aggregate({
        metricName: "purchases",
        aggregationMode: "count",
        labelSelectors: {},
        windowMs: 60_000,
        now: new Date(Date.now() + DAY),
      }),
    ).toBeUndefined();
  });

  it("lists the metrics with their labels, and charts one over a range", async () => {
    const metadata = await server.request("/api/admin/impact-metrics/metadata");
    expect(metadata.status).toBe(200);
    expect(metadata.body.metrics).toContainEqual({
      name: "unleash_counter_purchases",
      displayName: "purchases",
      help: "Purchases made",
      source: "internal",
      type: "counter",
      labels: {
        appName: ["shop"],
        environment: ["development"],
        metric_type: ["counter"],
        new_checkout: ["enabled"],
        origin: ["sdk"],
      },
    });
    expect(metadata.body.metrics.map((metric: { name: string }) => metric.name)).toEqual(
      expect.arrayContaining(["unleash_gauge_queue_depth", "unleash_histogram_checkout_seconds"]),
    );

    const chart = await server.request(
      "/api/admin/impact-metrics/?metricName=unleash_counter_purchases&range=hour&aggregationMode=count",
    );
    expect(chart.status).toBe(200);
    expect(chart.body).toMatchObject({ step: "1m", labels: { new_checkout: ["enabled"] } });
    expect(chart.body.series).toHaveLength(1);
    const data = chart.body.series[0].data as [number, string][];
    expect(data.length).toBeGreaterThanOrEqual(60);
    expect(data.reduce((sum, [, value]) => sum + Number(value), 0)).toBe(5);
    expect(Number(chart.body.end) - Number(chart.body.start)).toBeGreaterThanOrEqual(3600);
    for (const [at] of data) expect((at - Number(chart.body.start)) % 60).toBe(0);

    const labels = encodeURIComponent(JSON.stringify({ new_checkout: ["enabled"] }));
    const flagged = await server.request(
      `/api/admin/impact-metrics?series=unleash_counter_purchases&range=day&aggregationMode=count&labels=${labels}&mode=display`,
    );
    expect(flagged.status).toBe(200);
    expect(flagged.body.step).toBe("15m");
    expect(flagged.body.labels).toEqual({});
    expect(
      flagged.body.series[0].data.reduce(
        (sum: number, [, value]: [number, string]) => sum + Number(value),
        0,
      ),
    ).toBe(2);

    const p50 = await server.request(
      "/api/admin/impact-metrics/?metricName=unleash_histogram_checkout_seconds&range=week&aggregationMode=p50",
    );
    expect(p50.body.step).toBe("1h");
    expect(p50.body.series[0].data).toHaveLength(1);
    expect(Number(p50.body.series[0].data[0][1])).toBeCloseTo(0.4);

    const gauge = await server.request(
      "/api/admin/impact-metrics/?metricName=unleash_gauge_queue_depth&range=month",
    );
    expect(gauge.body.step).toBe("4h");
    expect(gauge.body.series[0].data.map(([, value]: [number, string]) => value)).toEqual(["11"]);

    const ghost = await server.request(
      "/api/admin/impact-metrics/?metricName=unleash_counter_ghost&range=hour",
    );
    expect(ghost.status).toBe(200);
    expect(ghost.body).toMatchObject({ series: [], labels: {} });

    const wrong = await server.request(
      "/api/admin/impact-metrics/?metricName=unleash_counter_purchases&range=hour&aggregationMode=p99",
    );
    expect(wrong.status).toBe(400);
    expect((await server.request("/api/admin/impact-metrics/?range=hour")).status).toBe(400);
    expect(
      (await server.request("/api/admin/impact-metrics/?metricName=purchases&labels=%7Bnope")).status,
    ).toBe(400);
  });

  it("shows Prometheus what this instance received, as the reference writes it", async () => {
    const reply = await server.request("/internal-backstage/prometheus", { token: null });
    expect(reply.status).toBe(200);
    const text = reply.body as string;
    const labels = 'appName="shop",environment="development"';
    expect(text).toContain("# HELP purchases Purchases made\n# TYPE purchases counter\n");
    expect(sample(text, `purchases{origin="sdk",metric_type="counter",${labels}}`)).toBe(3);
    expect(
      sample(text, `purchases{origin="sdk",metric_type="counter",${labels},new_checkout="enabled"}`),
    ).toBe(2);
    expect(text).toContain("# TYPE queue_depth gauge");
    expect(sample(text, `queue_depth{origin="sdk",metric_type="gauge",${labels}}`)).toBe(11);
    expect(text).toContain("# TYPE checkout_seconds histogram");
    const histogram = `origin="sdk",metric_type="histogram",${labels}`;
    expect(sample(text, `checkout_seconds_bucket{${histogram},le="0.1"}`)).toBe(1);
    expect(sample(text, `checkout_seconds_bucket{${histogram},le="0.5"}`)).toBe(3);
    expect(sample(text, `checkout_seconds_bucket{${histogram},le="1"}`)).toBe(4);
    expect(sample(text, `checkout_seconds_bucket{${histogram},le="+Inf"}`)).toBe(5);
    expect(sample(text, `checkout_seconds_sum{${histogram}}`)).toBeCloseTo(3.35);
    expect(sample(text, `checkout_seconds_count{${histogram}}`)).toBe(5);
    // The service's own metrics are still there.
    expect(text).toContain("# TYPE http_request_duration_milliseconds histogram");
  });

  it("answers 202 for malformed impact metrics, and stores none of them", async () => {
    const before = await server.request("/api/admin/impact-metrics/metadata");
    for (const malformed of [
      "nonsense",
      { name: "not-a-list" },
      [{ name: "no_help", type: "counter", samples: [{ value: 1 }] }],
      [{ name: "bad_value", help: "h", type: "counter", samples: [{ value: "1" }] }],
      [{ name: "negative", help: "h", type: "counter", samples: [{ value: -1 }] }],
      [{ name: "9lives", help: "h", type: "counter", samples: [{ value: 1 }] }],
      [{ name: "summary", help: "h", type: "summary", samples: [{ value: 1 }] }],
      [{ name: "bad_labels", help: "h", type: "gauge", samples: [{ labels: { a: { b: 1 } }, value: 1 }] }],
      [{ name: "hist", help: "h", type: "histogram", samples: [{ count: 1, sum: 1, buckets: "x" }] }],
      [null, 7, [], { samples: "no" }],
    ]) {
      const reply = await report(malformed);
      expect(reply.status, JSON.stringify(malformed)).toBe(202);
    }
    const after = await server.request("/api/admin/impact-metrics/metadata");
    expect(after.body).toEqual(before.body);
  });

  it("takes impact metrics from browser SDKs' reports, labelled with the token's environment", async () => {
    const reply = await report([counter("purchases", [{ value: 4 }])], {
      token: FRONTEND_TOKEN,
      path: "/api/frontend/client/metrics",
      appName: "web",
    });
    expect(reply.status).toBe(200);
    expect(await aggregate("purchases", "count", { appName: ["web"], environment: ["development"] })).toBe(4);
  });

  it("refuses metrics and series past the limits, keeps the rest, and says so once a minute", async () => {
    // purchases has three series now (shop, shop with the flag, web); queue_depth one.
    const many = counter(
      "queue_events",
      ["a", "b", "c", "d", "e"].map((kind) => ({ labels: { kind }, value: 1 })),
    );
    const more = counter("purchases", [{ labels: { region: "eu" }, value: 1 }]);
    const kept = counter("purchases", [{ value: 6 }]);
    const reply = await report([many, more, kept], { appName: "web" });
    expect(reply.status).toBe(202);
    expect(await aggregate("purchases", "count", { appName: ["web"] })).toBe(10);
    expect(await aggregate("purchases", "count", { region: ["eu"] })).toBeUndefined();
    expect(await aggregate("queue_events", "count")).toBe(3);
    // Four metrics: one more may come, then no more.
    const newcomers = ["first_new", "second_new", "third_new"].map((name) => counter(name, [{ value: 1 }]));
    expect((await report(newcomers)).status).toBe(202);
    expect(await aggregate("first_new", "count")).toBe(1);
    expect(await aggregate("second_new", "count")).toBeUndefined();
    expect(await aggregate("third_new", "count")).toBeUndefined();
    // Again: refused again, and no further warning within the minute.
    expect((await report([many, ...newcomers], { appName: "web" })).status).toBe(202);
    expect(await aggregate("queue_events", "count")).toBe(6);

    const series = warnings.filter((line) => line.includes("IMPACT_METRICS_MAX_SERIES_PER_METRIC"));
    const metrics = warnings.filter((line) => line.includes("IMPACT_METRICS_MAX_METRICS"));
    expect(series).toHaveLength(1);
    expect(series[0]).toContain("(3) allows");
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toContain("(5) allows");

    const metadata = await server.request("/api/admin/impact-metrics/metadata");
    expect(metadata.body.metrics).toHaveLength(5);
  });

  it("keeps charts on a flag: created, listed, changed and deleted, by those who may", async () => {
    const path = "/api/admin/projects/default/features/new-checkout/impact-metrics/config";
    expect((await server.request(path)).body).toEqual({ configs: [] });
    const chart = {
      metricName: "unleash_counter_purchases",
      timeRange: "hour",
      aggregationMode: "rps",
      labelSelectors: { appName: ["shop"] },
      yAxisMin: "zero",
      title: "Purchases",
    };
    const created = await server.request(path, { method: "PUT", body: chart });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      ...chart,
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      displayName: "purchases",
      source: "internal",
      step: "1m",
    });
    const { id } = created.body;
    const changed = await server.request(path, {
      method: "PUT",
      body: { ...chart, id, title: "Sales", timeRange: "week" },
    });
    expect(changed.body).toMatchObject({ id, title: "Sales", timeRange: "week", step: "1h" });
    const second = await server.request(path, {
      method: "POST",
      body: {
        metricName: "unleash_gauge_queue_depth",
        timeRange: "day",
        aggregationMode: "avg",
        labelSelectors: {},
      },
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ yAxisMin: "auto", displayName: "queue_depth", step: "15m" });
    expect((await server.request(path)).body.configs.map((config: { id: string }) => config.id)).toEqual([
      id,
      second.body.id,
    ]);

    // An aggregation that is not the named type's, and an id another flag's chart has.
    const wrong = await server.request(path, { method: "PUT", body: { ...chart, aggregationMode: "p95" } });
    expect(wrong.status).toBe(400);
    await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "other-flag" },
    });
    const taken = await server.request(
      "/api/admin/projects/default/features/other-flag/impact-metrics/config",
      {
        method: "PUT",
        body: { ...chart, id },
      },
    );
    expect(taken.status).toBe(400);

    // Viewers read; only those who may update the flag change its charts.
    const viewer = { token: null, headers: { cookie: await sessionOf(server, "Viewer") } };
    expect((await server.request(path, viewer)).status).toBe(200);
    expect((await server.request(path, { ...viewer, method: "PUT", body: chart })).status).toBe(403);
    expect((await server.request(`${path}/${id}`, { ...viewer, method: "DELETE" })).status).toBe(403);

    // A flag that is not in the project, or none at all, has no charts.
    expect(
      (
        await server.request("/api/admin/projects", {
          method: "POST",
          body: { id: "elsewhere", name: "Elsewhere" },
        })
      ).status,
    ).toBeLessThan(300);
    await server.request("/api/admin/projects/elsewhere/features", {
      method: "POST",
      body: { name: "far-flag" },
    });
    for (const missing of [
      "/api/admin/projects/default/features/ghost/impact-metrics/config",
      "/api/admin/projects/default/features/far-flag/impact-metrics/config",
      "/api/admin/projects/nowhere/features/new-checkout/impact-metrics/config",
    ]) {
      expect((await server.request(missing)).status, missing).toBe(404);
      expect((await server.request(missing, { method: "PUT", body: chart })).status, missing).toBe(404);
      expect((await server.request(`${missing}/${id}`, { method: "DELETE" })).status, missing).toBe(404);
    }

    expect((await server.request(`${path}/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(`${path}/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(path)).body.configs.map((config: { id: string }) => config.id)).toEqual([
      second.body.id,
    ]);
  });

  it("forgets points past the retention, and series left without any", async () => {
    // The SDK reports every 200 ms, a zero sample at least: stopped, and its last report let land.
    sdk.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pruned = await server.services.impactMetrics.prune(
      new Date(Date.now() + LIMITS.retentionMs + 60_000),
    );
    expect(pruned.points).toBeGreaterThan(0);
    expect(pruned.series).toBeGreaterThan(0);
    expect(await aggregate("purchases", "count")).toBeUndefined();
    expect((await server.request("/api/admin/impact-metrics/metadata")).body.metrics).toEqual([]);
    // New reports start again.
    expect((await report([counter("purchases", [{ value: 2 }])])).status).toBe(202);
    expect(await aggregate("purchases", "count")).toBe(2);
  });
});
