import { type IConfig, InMemoryStorageProvider, UnleashClient } from "unleash-proxy-client";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, eventually, flagDocument, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

// The published browser SDK, run in Node with its global fetch, against a listening proxy.

let upstream: FakeUpstream;
let proxy: SignalboxProxy;
let address: string;
const clients: UnleashClient[] = [];

beforeAll(async () => {
  upstream = await FakeUpstream.start(flagDocument());
  proxy = await startProxy(upstream, { metricsInterval: 50 });
  address = await proxy.listen({ port: 0, host: "127.0.0.1" });
});
afterEach(() => {
  for (const client of clients.splice(0)) client.stop();
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

async function startClient(config: Partial<IConfig> = {}): Promise<UnleashClient> {
  const client = new UnleashClient({
    url: `${address}/proxy`,
    clientKey: CLIENT_KEY,
    appName: "web",
    refreshInterval: 0.05,
    metricsInterval: 0.05,
    metricsIntervalInitial: 0.05,
    storageProvider: new InMemoryStorageProvider(),
    ...config,
  });
  clients.push(client);
  await client.start();
  return client;
}

describe.each([
  ["GET", false],
  ["POST", true],
])("unleash-proxy-client 3.8.2 with %s requests", (_, usePOSTrequests) => {
  test("gets flags, variants and payloads right", async () => {
    const client = await startClient({
      usePOSTrequests,
      context: { userId: "42", properties: { region: "Africa" } },
    });
    expect(client.isEnabled("simple")).toBe(true);
    expect(client.isEnabled("off")).toBe(false);
    expect(client.isEnabled("user-42")).toBe(true);
    expect(client.isEnabled("africa")).toBe(true);
    expect(client.isEnabled("production-only")).toBe(false);
    expect(client.getVariant("colors")).toEqual({
      name: "blue",
      enabled: true,
      feature_enabled: true,
      payload: { type: "json", value: '{"hex":"#00f"}' },
    });
    expect(client.getVariant("greeting").payload).toEqual({ type: "string", value: "Hello!" });
    expect(client.getVariant("simple")).toEqual({ name: "disabled", enabled: false, feature_enabled: true });
    expect(client.getVariant("off")).toMatchObject({
      name: "disabled",
      enabled: false,
      feature_enabled: false,
    });
  });

  test("a context change is never answered from a stale ETag", async () => {
    // Without the refresh timer: a refresh that fires while a context change is asking
    // aborts that request, and the SDK then resolves the change keeping the flags it had.
    const asked: Array<string | null> = [];
    const client = await startClient({
      usePOSTrequests,
      context: { userId: "42" },
      disableRefresh: true,
      fetch: (url: string, init: RequestInit) => {
        if (!url.endsWith("/client/metrics")) asked.push(new Headers(init.headers).get("if-none-match"));
        return fetch(url, init);
      },
    });
    expect(client.isEnabled("user-42")).toBe(true);
    await client.updateContext({ userId: "7" });
    expect(client.isEnabled("user-42")).toBe(false);
    await client.setContextField("userId", "42");
    expect(client.isEnabled("user-42")).toBe(true);
    // Each change was asked with the ETag of the answer for the context before it.
    expect(asked).toHaveLength(3);
    expect(asked[0]).toBeNull();
    expect(asked[1]).toBeTruthy();
    expect(asked[2]).toBeTruthy();
    expect(asked[2]).not.toBe(asked[1]);
  });
});

test("impression events are raised for flags with impressionData", async () => {
  const client = await startClient();
  const impressions: Array<{ featureName: string }> = [];
  client.on("impression", (event: { featureName: string }) => impressions.push(event));
  client.isEnabled("simple");
  client.isEnabled("colors");
  expect(impressions.map((event) => event.featureName)).toEqual(["simple"]);
});

test("sees a change made upstream after its refresh", async () => {
  const client = await startClient();
  expect(client.isEnabled("late-flag")).toBe(false);
  const document = flagDocument();
  document.features.push({ name: "late-flag", enabled: true, strategies: [{ name: "default" }] });
  upstream.setDocument(document);
  await eventually(() => expect(client.isEnabled("late-flag")).toBe(true));
});

test("its usage metrics reach the upstream through the proxy", async () => {
  const client = await startClient();
  for (let i = 0; i < 3; i++) client.isEnabled("named-disabled");
  client.getVariant("named-disabled");
  // Only this test uses the flag; the counts may arrive split over several buckets.
  await eventually(() => {
    const counts = upstream
      .requestsTo("/api/client/metrics")
      .map((request) => JSON.parse(request.body).bucket.toggles["named-disabled"])
      .filter(Boolean);
    const sum = (pick: (count: { yes: number; variants: Record<string, number> }) => number) =>
      counts.reduce((total, count) => total + pick(count), 0);
    expect(sum((count) => count.yes)).toBe(4);
    expect(sum((count) => count.variants.disabled ?? 0)).toBe(1);
  });
});
