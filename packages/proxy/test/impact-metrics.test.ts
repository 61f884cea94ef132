import type { ClientFeatures } from "@signalbox/engine";
import type { ImpactMetric } from "@signalbox/protocol";
import { afterEach, describe, expect, test } from "vitest";
import { type DropObserver, ReportBudget } from "../src/budget.js";
import { ImpactMetricsAggregator } from "../src/impact-metrics.js";
import type { ProxyOptions, SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, eventually, flagDocument, recordingLogger, startProxy } from "./support/fixtures.js";
import { FakeUpstream, type RecordedRequest } from "./support/upstream.js";

// Clients' impact metrics (counters and histograms as what changed since their last report,
// gauges as values) leave in the proxy's own report, added up per metric and labels between
// sends, each labelled origin "proxy" unless it names its own.

const METRICS = "/api/client/metrics";
const ignoreDrops: DropObserver = { reportsDropped: () => {} };
const budget = (limit?: number) =>
  new ReportBudget({ logger: recordingLogger(), observer: ignoreDrops, limit });

const counter = (value: number, labels: Record<string, string> = { appName: "web" }): ImpactMetric => ({
  name: "clicks",
  help: "Clicks",
  type: "counter",
  samples: [{ labels, value }],
});
const gauge = (value: number): ImpactMetric => ({
  name: "queue",
  help: "Queue",
  type: "gauge",
  samples: [{ labels: { appName: "web" }, value }],
});
const histogram = (observations: number[]): ImpactMetric => ({
  name: "latency",
  help: "Latency",
  type: "histogram",
  samples: [
    {
      labels: { appName: "web" },
      count: observations.length,
      sum: observations.reduce((sum, value) => sum + value, 0),
      buckets: [
        { le: 0.5, count: observations.filter((value) => value <= 0.5).length },
        { le: "+Inf", count: observations.length },
      ],
    },
  ],
});

describe("ImpactMetricsAggregator", () => {
  test("adds up counters and histograms per name and labels, keeps gauges' last values, labels the origin", () => {
    const impact = new ImpactMetricsAggregator(budget());
    impact.add([counter(2), gauge(5), histogram([0.1, 1])]);
    impact.add([counter(3), gauge(9), histogram([0.2])]);
    impact.add([counter(1, { appName: "web", origin: "edge" })], { environment: "production" });
    expect(impact.take()).toEqual([
      {
        name: "clicks",
        help: "Clicks",
        type: "counter",
        samples: [
          { labels: { appName: "web", origin: "proxy" }, value: 5 },
          { labels: { appName: "web", origin: "edge", environment: "production" }, value: 1 },
        ],
      },
      {
        name: "queue",
        help: "Queue",
        type: "gauge",
        samples: [{ labels: { appName: "web", origin: "proxy" }, value: 9 }],
      },
      {
        name: "latency",
        help: "Latency",
        type: "histogram",
        samples: [
          {
            labels: { appName: "web", origin: "proxy" },
            count: 3,
            sum: expect.closeTo(1.3),
            buckets: [
              { le: 0.5, count: 2 },
              { le: "+Inf", count: 3 },
            ],
          },
        ],
      },
    ]);
    expect(impact.take()).toBeUndefined();
  });

  test("what could not be sent is put back: counts add to the new ones, a newer gauge stays", () => {
    const impact = new ImpactMetricsAggregator(budget());
    impact.add([counter(2), gauge(5)]);
    const failed = impact.take()!;
    impact.add([counter(4), gauge(7)]);
    impact.restore(failed);
    impact.restore([{ ...gauge(1), name: "other_gauge" }]);
    const next = impact.take()!;
    expect(next.find((metric) => metric.name === "clicks")!.samples).toEqual([
      { labels: { appName: "web", origin: "proxy" }, value: 6 },
    ]);
    expect(next.find((metric) => metric.name === "queue")!.samples).toEqual([
      { labels: { appName: "web", origin: "proxy" }, value: 7 },
    ]);
    expect(next.find((metric) => metric.name === "other_gauge")!.samples[0]).toMatchObject({ value: 1 });
  });

  test("new series past the budget for pending reports are dropped, known ones still count", () => {
    const impact = new ImpactMetricsAggregator(budget(200));
    impact.add([counter(1)]);
    for (let i = 0; i < 10; i++) impact.add([counter(1, { appName: `app-${i}` })]);
    impact.add([counter(1)]);
    const samples = impact.take()![0]!.samples;
    expect(samples.length).toBeLessThan(11);
    expect(samples[0]).toEqual({ labels: { appName: "web", origin: "proxy" }, value: 2 });
  });
});

describe("through the proxy", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  async function proxyOn(options: ProxyOptions = {}) {
    const upstream = await FakeUpstream.start(flagDocument());
    cleanup.push(() => upstream.close());
    const proxy: SignalboxProxy = await startProxy(upstream, { logger: recordingLogger(), ...options });
    let closed = false;
    cleanup.push(async () => {
      if (!closed) await proxy.close();
    });
    const close = async () => {
      closed = true;
      await proxy.close();
    };
    return { upstream, proxy, close };
  }

  const post = (proxy: SignalboxProxy, url: string, authorization: string, impactMetrics: unknown) =>
    proxy.app.inject({
      method: "POST",
      url,
      headers: { authorization },
      payload: { appName: "web", instanceId: "i-1", impactMetrics },
    });

  const ownReports = (upstream: FakeUpstream) =>
    upstream
      .requestsTo(METRICS)
      .filter((request) => request.headers.authorization === "upstream-token")
      .map((request: RecordedRequest) => JSON.parse(request.body));

  test("clients' impact metrics leave in the proxy's report, added up, malformed ones dropped", async () => {
    const { upstream, proxy, close } = await proxyOn({ metricsInterval: 60_000, serviceAppName: "edge-1" });
    expect((await post(proxy, "/proxy/client/metrics", CLIENT_KEY, [counter(2), gauge(5)])).statusCode).toBe(
      200,
    );
    expect((await post(proxy, "/proxy/client/metrics", CLIENT_KEY, [counter(3), gauge(9)])).statusCode).toBe(
      200,
    );
    expect((await post(proxy, "/proxy/client/metrics", CLIENT_KEY, "nonsense")).statusCode).toBe(200);
    expect(
      (
        await post(proxy, "/proxy/client/metrics", CLIENT_KEY, [
          { name: "no_help", type: "counter", samples: [] },
        ])
      ).statusCode,
    ).toBe(200);
    await close();
    const [report] = ownReports(upstream).filter((body) => body.impactMetrics);
    expect(report.appName).toBe("edge-1");
    expect(report.bucket.toggles).toEqual({});
    expect(report.impactMetrics).toEqual([
      {
        name: "clicks",
        help: "Clicks",
        type: "counter",
        samples: [{ labels: { appName: "web", origin: "proxy" }, value: 5 }],
      },
      {
        name: "queue",
        help: "Queue",
        type: "gauge",
        samples: [{ labels: { appName: "web", origin: "proxy" }, value: 9 }],
      },
    ]);
  });

  test("a server SDK's report on the service's path is forwarded without them; they go in the proxy's, with its environment", async () => {
    const { upstream, proxy, close } = await proxyOn({ metricsInterval: 60_000 });
    // The fake answers any path it holds a document for: here, the service's token check.
    const validation = {
      tokens: [{ token: "sdk-secret", type: "client", environment: "production", projects: ["*"] }],
    };
    upstream.documents.set("/edge/validate", validation as unknown as ClientFeatures);
    const reply = await post(proxy, "/api/client/metrics", "sdk-secret", [counter(4), histogram([0.1, 0.7])]);
    expect(reply.statusCode).toBe(202);
    await close();
    const forwarded = upstream
      .requestsTo(METRICS)
      .filter((request) => request.headers.authorization === "sdk-secret")
      .map((request) => JSON.parse(request.body));
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatchObject({ appName: "web", instanceId: "i-1" });
    expect(forwarded[0]).not.toHaveProperty("impactMetrics");
    const [report] = ownReports(upstream).filter((body) => body.impactMetrics);
    const labels = { appName: "web", environment: "production", origin: "proxy" };
    expect(report.impactMetrics[0]).toEqual({ ...counter(4), samples: [{ labels, value: 4 }] });
    expect(report.impactMetrics[1].samples[0]).toMatchObject({ labels, count: 2 });
  });

  test("a failed send is retried with nothing counted twice", async () => {
    const { upstream, proxy } = await proxyOn({ metricsInterval: 50 });
    upstream.faults.set(METRICS, 503);
    await post(proxy, "/proxy/client/metrics", CLIENT_KEY, [counter(2)]);
    await upstream.waitFor(
      (request) => request.path === METRICS && request.body.includes("clicks"),
      "a failing send",
    );
    await post(proxy, "/proxy/client/metrics", CLIENT_KEY, [counter(3)]);
    upstream.faults.delete(METRICS);
    await eventually(() => {
      const delivered = upstream
        .requestsTo(METRICS)
        .filter((request) => request.status === 202 && request.body.includes("clicks"));
      const total = delivered.reduce(
        (sum, request) => sum + JSON.parse(request.body).impactMetrics[0].samples[0].value,
        0,
      );
      expect(total).toBe(5);
    });
  });
});
