import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClientFeatures } from "@signalbox/engine";
import { afterEach, describe, expect, test } from "vitest";
import {
  FileStorageProvider,
  type ProxyOptions,
  type SignalboxProxy,
  type StorageProvider,
} from "../src/index.js";
import {
  CLIENT_KEY,
  eventually,
  flagDocument,
  recordingLogger,
  startProxy,
  tenantStrategy,
} from "./support/fixtures.js";
import { FakeUpstream, type RecordedRequest } from "./support/upstream.js";

const FEATURES = "/api/client/features";
const METRICS = "/api/client/metrics";
const REGISTER = "/api/client/register";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function upstreamWith(document: ClientFeatures = flagDocument()): Promise<FakeUpstream> {
  const upstream = await FakeUpstream.start(document);
  cleanup.push(() => upstream.close());
  return upstream;
}

async function proxyOn(
  upstream: FakeUpstream,
  options: ProxyOptions = {},
  wait = true,
): Promise<SignalboxProxy> {
  const proxy = await startProxy(upstream, { logger: recordingLogger(), ...options }, { wait });
  cleanup.push(() => proxy.close());
  return proxy;
}

const logOf = (proxy: SignalboxProxy) => proxy.config.logger as ReturnType<typeof recordingLogger>;

async function enabledNames(proxy: SignalboxProxy): Promise<string[]> {
  const response = await proxy.app.inject({
    method: "GET",
    url: "/proxy?sessionId=1",
    headers: { authorization: CLIENT_KEY },
  });
  expect(response.statusCode).toBe(200);
  return response.json().toggles.map((toggle: { name: string }) => toggle.name);
}

function withFlag(name: string): ClientFeatures {
  const document = flagDocument();
  document.features.push({ name, enabled: true, strategies: [] });
  return document;
}

describe("polling", () => {
  test("asks for the configured project, name prefix and tags, as this app and instance", async () => {
    const upstream = await upstreamWith();
    await proxyOn(upstream, {
      projectName: "checkout",
      namePrefix: "web.",
      tags: [
        { name: "team", value: "a" },
        { name: "simple", value: "b" },
      ],
      serviceAppName: "edge-1",
      serviceInstanceId: "instance-9",
    });
    const poll = upstream.requestsTo(FEATURES)[0]!;
    expect(poll.query.get("project")).toBe("checkout");
    expect(poll.query.get("namePrefix")).toBe("web.");
    expect(poll.query.getAll("tag")).toEqual(["team:a", "simple:b"]);
    expect(poll.headers).toMatchObject({
      authorization: "upstream-token",
      "unleash-appname": "edge-1",
      "unleash-instanceid": "instance-9",
      "user-agent": "edge-1",
      "unleash-interval": "40",
    });
    expect(poll.headers["unleash-sdk"]).toMatch(/^signalbox-proxy:/);
  });

  test("every refreshInterval, with the last ETag; a change upstream is served", async () => {
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream);
    await upstream.waitFor(
      (request) => request.headers["if-none-match"] === upstream.etag,
      "a conditional poll",
    );
    // Five polls take 200 ms at the configured 40 ms, and 20 s at the default 5 s.
    await upstream.waitFor(() => upstream.requestsTo(FEATURES).length >= 5, "five polls");
    upstream.setDocument(withFlag("brand-new"));
    await eventually(async () => expect(await enabledNames(proxy)).toContain("brand-new"));
  });

  test("keeps serving the last configuration while the upstream fails, then recovers by itself", async () => {
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream);
    upstream.faults.set(FEATURES, 503);
    await eventually(() => expect(logOf(proxy).has("warn", "HTTP 503")).toBe(true));
    expect(logOf(proxy).has("warn", "serving the last configuration")).toBe(true);
    expect(await enabledNames(proxy)).toContain("simple");
    upstream.setDocument(withFlag("after-outage"));
    upstream.faults.delete(FEATURES);
    await eventually(async () => expect(await enabledNames(proxy)).toContain("after-outage"));
    expect(logOf(proxy).has("info", "answers again")).toBe(true);
  });

  test("backs off on errors and rate limits: the wait grows with each failure", async () => {
    const upstream = await upstreamWith();
    upstream.faults.set(FEATURES, 429);
    const proxy = await proxyOn(upstream, {}, false);
    await eventually(() => expect(logOf(proxy).has("warn", "retrying in 120 ms")).toBe(true));
    expect(logOf(proxy).has("warn", "retrying in 80 ms")).toBe(true);
  });

  test("on 401/403 it says so, asks only every eleven intervals, and recovers when the token is accepted", async () => {
    const upstream = await upstreamWith();
    upstream.faults.set(FEATURES, 401);
    const proxy = await proxyOn(upstream, { refreshInterval: 20 }, false);
    await eventually(() => expect(logOf(proxy).has("error", "refused the API token (HTTP 401)")).toBe(true));
    const refused = await upstream.waitFor((request) => request.path === FEATURES);
    const again = await upstream.waitFor(
      (request) => request.path === FEATURES && request !== refused,
      "a second poll",
    );
    // Timers only ever fire late, so the gap is a lower bound that load cannot break.
    expect(again.at - refused.at).toBeGreaterThanOrEqual(11 * 20 - 5);
    const refusals = logOf(proxy).lines.filter((line) => line.message.includes("refused the API token"));
    expect(refusals).toHaveLength(1);
    expect((await proxy.app.inject({ method: "GET", url: "/proxy/health" })).statusCode).toBe(503);

    upstream.faults.delete(FEATURES);
    await proxy.ready;
    expect(await enabledNames(proxy)).toContain("simple");
  });
});

describe("a serviceUrl that is not the flag service's API", () => {
  test("is named in the log once, with the URL tried and the /api fix, and is retried at the normal interval", async () => {
    const upstream = await upstreamWith();
    const withoutApi = upstream.url.replace(/\/api$/, "");
    upstream.faults.set("/client/features", 404);
    const proxy = await proxyOn(upstream, { serviceUrl: withoutApi }, false);
    // 25 polls at 40 ms take 1 s; backing off as for an overloaded service would take over 9 s.
    await upstream.waitFor(() => upstream.requestsTo("/client/features").length >= 25, "25 polls");
    const reports = logOf(proxy).lines.filter((line) => line.message.includes("404"));
    expect(reports).toEqual([
      {
        level: "error",
        message:
          `The upstream service answered 404 for ${withoutApi}/client/features: serviceUrl (SERVICE_URL) is wrong; ` +
          `it must be the flag service's API URL, usually ending in /api: try ${withoutApi}/api. Retrying every 40 ms.`,
      },
    ]);
    expect(logOf(proxy).has("error", "API token")).toBe(false);
  });
});

describe("storageProvider", () => {
  test("a reachable upstream is served from the start, never the stored configuration first", async () => {
    const stored = withFlag("stale");
    const storage: StorageProvider = { set: async () => {}, get: async () => stored };
    const upstream = await upstreamWith(withFlag("fresh"));
    const proxy = await proxyOn(upstream, { storageProvider: storage });
    expect(await enabledNames(proxy)).toContain("fresh");
    expect(await enabledNames(proxy)).not.toContain("stale");
    expect(logOf(proxy).has("warn", "storage configuration")).toBe(false);
  });

  test("a provider that throws while saving is logged, and polling goes on", async () => {
    const storage: StorageProvider = {
      set: (() => {
        throw new Error("disk full");
      }) as StorageProvider["set"],
      get: async () => undefined,
    };
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream, { storageProvider: storage, refreshInterval: 20 });
    await eventually(() =>
      expect(logOf(proxy).has("warn", "Cannot store the configuration: disk full")).toBe(true),
    );
    upstream.setDocument(withFlag("after-the-failure"));
    await eventually(async () => expect(await enabledNames(proxy)).toContain("after-the-failure"));
  });

  test("the last good configuration is saved, and a restart while the upstream is down serves it", async () => {
    const storage = new FileStorageProvider(await mkdtemp(join(tmpdir(), "signalbox-proxy-storage-")));
    const upstream = await upstreamWith(withFlag("saved"));
    const first = await proxyOn(upstream, { storageProvider: storage, serviceAppName: "stored-app" });
    await eventually(async () =>
      expect((await storage.get("stored-app"))?.features.length).toBeGreaterThan(0),
    );
    await first.close();

    upstream.faults.set(FEATURES, 500);
    const restarted = await proxyOn(upstream, { storageProvider: storage, serviceAppName: "stored-app" });
    expect(await enabledNames(restarted)).toContain("saved");
    expect(
      logOf(restarted).has("warn", "from the storage configuration until the upstream service answers"),
    ).toBe(true);
  });

  test("a custom provider is asked for the configuration at start and told about each new one", async () => {
    const saved: ClientFeatures[] = [];
    const asked: string[] = [];
    const storage: StorageProvider = {
      async set(_key, data) {
        saved.push(data);
      },
      async get(key) {
        asked.push(key);
        return undefined;
      },
    };
    const upstream = await upstreamWith();
    await proxyOn(upstream, { storageProvider: storage });
    expect(asked).toEqual(["service-proxy"]);
    await eventually(() => expect(saved[0]?.features).toHaveLength(flagDocument().features.length));
  });
});

describe("expBootstrap", () => {
  test("serves the bootstrap document until the upstream answers, then the upstream's", async () => {
    const upstream = await upstreamWith(withFlag("from-upstream"));
    upstream.faults.set(FEATURES, 500);
    upstream.documents.set("/bootstrap.json", withFlag("from-bootstrap"));
    const proxy = await proxyOn(upstream, {
      expBootstrap: {
        url: upstream.url.replace("/api", "/bootstrap.json"),
        urlHeaders: { Authorization: "bootstrap-secret" },
      },
    });
    expect(await enabledNames(proxy)).toContain("from-bootstrap");
    expect(upstream.requestsTo("/bootstrap.json")[0]!.headers.authorization).toBe("bootstrap-secret");
    upstream.faults.delete(FEATURES);
    await eventually(async () => expect(await enabledNames(proxy)).toContain("from-upstream"));
    expect(await enabledNames(proxy)).not.toContain("from-bootstrap");
  });
});

describe("registration and usage metrics", () => {
  const clientMetrics = (
    toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }>,
  ) => ({
    appName: "web",
    instanceId: "browser",
    bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles },
  });

  const sentToggles = (request: RecordedRequest) => JSON.parse(request.body).bucket.toggles;

  test("registers on start with its identity and strategies", async () => {
    const upstream = await upstreamWith();
    await proxyOn(upstream, {
      serviceAppName: "edge-1",
      serviceInstanceId: "instance-9",
      customStrategies: [tenantStrategy],
      metricsInterval: 1234,
    });
    const registration = JSON.parse((await upstream.waitFor((request) => request.path === REGISTER)).body);
    expect(registration).toMatchObject({ appName: "edge-1", instanceId: "instance-9", interval: 1234 });
    expect(registration.strategies).toEqual(expect.arrayContaining(["default", "flexibleRollout", "tenant"]));
    expect(Date.parse(registration.started)).not.toBeNaN();
  });

  test("sends the counts of its own evaluations and of what clients posted, every metricsInterval", async () => {
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream, { serviceAppName: "edge-1" });
    await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY },
      payload: { toggles: ["colors", "off"], context: {} },
    });
    await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/metrics",
      headers: { authorization: CLIENT_KEY },
      payload: clientMetrics({ colors: { yes: 2, no: 1, variants: { blue: 2 } }, simple: { yes: 5, no: 0 } }),
    });
    const sent = await upstream.waitFor(
      (request) => request.path === METRICS && "simple" in sentToggles(request),
      "the counts",
    );
    const body = JSON.parse(sent.body);
    expect(body.appName).toBe("edge-1");
    expect(body.bucket.toggles).toEqual({
      colors: { yes: 3, no: 1, variants: { blue: 3 } },
      off: { yes: 0, no: 1, variants: {} },
      simple: { yes: 5, no: 0, variants: {} },
    });
  });

  test("a failed send is retried at the next interval with nothing dropped", async () => {
    const upstream = await upstreamWith();
    upstream.faults.set(METRICS, 500);
    const proxy = await proxyOn(upstream);
    await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/metrics",
      headers: { authorization: CLIENT_KEY },
      payload: clientMetrics({ simple: { yes: 4, no: 1 } }),
    });
    await upstream.waitFor((request) => request.path === METRICS, "a failing send");
    await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/metrics",
      headers: { authorization: CLIENT_KEY },
      payload: clientMetrics({ simple: { yes: 1, no: 0 } }),
    });
    upstream.faults.delete(METRICS);
    await eventually(() => {
      const delivered = upstream.requestsTo(METRICS).filter((request) => request.status === 202);
      const total = delivered.reduce((sum, request) => sum + (sentToggles(request).simple?.yes ?? 0), 0);
      expect(total).toBe(5);
    });
  });

  test("client registrations are forwarded upstream", async () => {
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream);
    await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/register",
      headers: { authorization: CLIENT_KEY },
      payload: { appName: "mobile", instanceId: "m-1", interval: 1000, started: 0, strategies: ["default"] },
    });
    const forwarded = await upstream.waitFor(
      (request) => request.path === REGISTER && JSON.parse(request.body).appName === "mobile",
    );
    expect(JSON.parse(forwarded.body).instanceId).toBe("m-1");
  });

  test("closing sends what is still counted", async () => {
    const upstream = await upstreamWith();
    const proxy = await startProxy(upstream, { metricsInterval: 60_000 });
    await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/metrics",
      headers: { authorization: CLIENT_KEY },
      payload: clientMetrics({ greeting: { yes: 1, no: 0 } }),
    });
    await proxy.close();
    expect(sentToggles(upstream.requestsTo(METRICS)[0]!)).toHaveProperty("greeting");
  });
});

describe("following the upstream's event stream", () => {
  const STREAMING = "/api/client/streaming";
  const hydration = (eventId: number, document: ClientFeatures) => ({
    events: [{ type: "hydration", eventId, features: document.features, segments: document.segments ?? [] }],
  });

  async function streamingUpstream(): Promise<FakeUpstream> {
    const upstream = await upstreamWith();
    upstream.streaming = true;
    return upstream;
  }

  test("serves the hydration, applies each update at once without polling, and resumes with Last-Event-ID", async () => {
    const upstream = await streamingUpstream();
    const proxy = await proxyOn(upstream, { refreshInterval: 60_000 }, false);
    await eventually(() => expect(upstream.openStreams).toBe(1));
    upstream.sendEvent("unleash-connected", 7, hydration(7, flagDocument()));
    await proxy.ready;
    expect(await enabledNames(proxy)).toContain("simple");

    const added = withFlag("brand-new").features.find((feature) => feature.name === "brand-new");
    upstream.sendEvent("unleash-updated", 8, {
      events: [{ type: "feature-updated", eventId: 8, feature: added }],
    });
    await eventually(async () => expect(await enabledNames(proxy)).toContain("brand-new"));
    upstream.sendEvent("unleash-updated", 9, {
      events: [{ type: "feature-removed", eventId: 9, featureName: "simple", project: "default" }],
    });
    await eventually(async () => expect(await enabledNames(proxy)).not.toContain("simple"));
    expect(upstream.requestsTo(FEATURES)).toEqual([]);

    upstream.endStreams();
    const resumed = await upstream.waitFor(
      (request) => request.path === STREAMING && request.headers["last-event-id"] !== undefined,
      "a reconnection",
    );
    expect(resumed.headers["last-event-id"]).toBe("9");
    expect(resumed.headers.authorization).toBe(proxy.config.serviceApiToken);
  });

  test("asks for everything again after an event it cannot read", async () => {
    const upstream = await streamingUpstream();
    const proxy = await proxyOn(upstream, { refreshInterval: 60_000 }, false);
    await eventually(() => expect(upstream.openStreams).toBe(1));
    upstream.sendEvent("unleash-connected", 3, hydration(3, flagDocument()));
    await proxy.ready;
    upstream.sendEvent("unleash-updated", 4, { events: [{ type: "feature-renamed", eventId: 4 }] });
    const fresh = await upstream.waitFor(
      (request) => request.path === STREAMING && upstream.requestsTo(STREAMING).indexOf(request) > 0,
      "a reconnection",
    );
    expect(fresh.headers["last-event-id"]).toBeUndefined();
    expect(await enabledNames(proxy)).toContain("simple");
  });

  test("polls an upstream that has no stream, after one try", async () => {
    const upstream = await upstreamWith();
    const proxy = await proxyOn(upstream);
    expect(await enabledNames(proxy)).toContain("simple");
    expect(upstream.requestsTo(STREAMING)).toHaveLength(1);
    expect(logOf(proxy).has("info", "the upstream has no event stream (it answered HTTP 404)")).toBe(true);
  });

  test("polls after five failed streams in a row, keeping what it serves, and streams again later", async () => {
    const upstream = await streamingUpstream();
    upstream.faults.set(STREAMING, 503);
    const proxy = await proxyOn(upstream, { refreshInterval: 50, streamRetryInterval: 500 });
    expect(upstream.requestsTo(STREAMING)).toHaveLength(5);
    expect(await enabledNames(proxy)).toContain("simple");
    expect(logOf(proxy).has("warn", "the stream failed 5 times in a row (HTTP 503)")).toBe(true);

    upstream.faults.delete(STREAMING);
    await eventually(() => expect(upstream.openStreams).toBe(1));
    const polls = upstream.requestsTo(FEATURES).length;
    upstream.sendEvent("unleash-connected", 20, hydration(20, withFlag("streamed-again")));
    await eventually(async () => expect(await enabledNames(proxy)).toContain("streamed-again"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(upstream.requestsTo(FEATURES).length).toBeLessThanOrEqual(polls + 1);
  });

  test("is not used when streaming is turned off", async () => {
    const upstream = await streamingUpstream();
    const proxy = await proxyOn(upstream, { streaming: false });
    expect(await enabledNames(proxy)).toContain("simple");
    expect(upstream.requestsTo(STREAMING)).toEqual([]);
  });
});
