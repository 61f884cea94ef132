import { createProxy, type ProxyOptions, type SignalboxProxy } from "@signalbox/proxy";
import type { RunningServer } from "@signalbox/server";
import { InMemStorageProvider, Unleash } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Admin,
  adminOf,
  browserSdkSeesTheService,
  CLIENT,
  createBrowserFlags,
  developmentOf,
  FRONTEND,
  startService,
} from "./support/service.js";

const CLIENT_KEY = "e2e-browser-key";

/** A flag service with the browser flags, and a proxy in front of it, ready. */
function serviceAndProxy(options: ProxyOptions) {
  const running = {} as { service: RunningServer; admin: Admin; proxy: SignalboxProxy; proxyUrl: string };
  beforeAll(async () => {
    running.service = await startService();
    running.admin = adminOf(running.service);
    await createBrowserFlags(running.admin);
    running.proxy = await createProxy({
      serviceUrl: `${running.service.url}/api`,
      serviceApiToken: CLIENT,
      clientKeys: [CLIENT_KEY],
      logLevel: "error",
      ...options,
    });
    running.proxyUrl = await running.proxy.listen({ port: 0, host: "127.0.0.1" });
    await running.proxy.ready;
  });
  afterAll(async () => {
    await running.proxy?.close();
    await running.service?.close();
  });
  return running;
}

// A browser app's path through Signalbox: the browser SDK asks the proxy, the proxy
// evaluates what it synced from the service, and usage flows back to the service.
describe("browser SDK → proxy → flag service", () => {
  const running = serviceAndProxy({ refreshInterval: 100, metricsInterval: 200 });

  it("serves the browser SDK the flags, variants and payloads configured in the service, and later changes", async () => {
    await browserSdkSeesTheService(running.admin, `${running.proxyUrl}/proxy`, CLIENT_KEY);
  });
});

// The proxy follows the service's event stream: a change reaches browsers through it long
// before the proxy's next poll would have fetched it.
describe("proxy following the flag service by streaming", () => {
  const running = serviceAndProxy({ refreshInterval: 600_000 });

  const darkMode = async () => {
    const response = await running.proxy.app.inject({
      method: "GET",
      url: "/proxy?userId=alice",
      headers: { authorization: CLIENT_KEY },
    });
    return response.json().toggles.some((toggle: { name: string }) => toggle.name === "dark-mode");
  };

  it("serves a change made in the service within moments, with no poll due for ten minutes", async () => {
    expect(await darkMode()).toBe(false);
    await running.admin("POST", `${developmentOf("dark-mode")}/on`);
    const deadline = Date.now() + 3000;
    while (!(await darkMode()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await darkMode()).toBe(true);
  });
});

/** A Node SDK reading `url` with `token`, polling or streaming; resolves once it has flags. */
async function nodeSdk(url: string, token: string, streaming: boolean): Promise<Unleash> {
  const sdk = new Unleash({
    appName: "e2e-relay",
    url,
    customHeaders: { Authorization: token },
    refreshInterval: 60_000,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
    ...(streaming ? { experimentalMode: { type: "streaming" as const } } : {}),
  });
  sdk.on("error", () => undefined);
  await new Promise((resolve) => sdk.once("synchronized", resolve));
  return sdk;
}

// The proxy in Unleash Edge's place: SDKs keep the service's own tokens and paths and point
// at the proxy instead.
describe("the proxy as a relay for the service's own tokens", () => {
  const running = serviceAndProxy({
    refreshInterval: 600_000,
    metricsInterval: 200,
    edgeTokens: [CLIENT],
    tokenRevalidationInterval: 100,
  });
  const viaProxy = (path: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${running.proxyUrl}${path}`, { headers: { authorization: token, ...headers } });

  // First: it switches dark-mode on, which the later tests take as it leaves it.
  it("serves the browser SDK on /api/frontend with a frontend token, and forwards its usage", async () => {
    await browserSdkSeesTheService(running.admin, `${running.proxyUrl}/api/frontend`, FRONTEND);
  });

  it("serves the Node SDK on /api/client what the service serves it, and streams a change at once", async () => {
    const direct = await nodeSdk(`${running.service.url}/api`, CLIENT, false);
    const polling = await nodeSdk(`${running.proxyUrl}/api`, CLIENT, false);
    const streaming = await nodeSdk(`${running.proxyUrl}/api`, CLIENT, true);
    try {
      const definitions = (sdk: Unleash) =>
        sdk.getFeatureToggleDefinitions().sort((a, b) => a.name.localeCompare(b.name));
      expect(definitions(polling)).toEqual(definitions(direct));
      expect(definitions(streaming)).toEqual(definitions(direct));
      expect(streaming.isEnabled("welcome-banner", { userId: "alice" })).toBe(true);

      expect(streaming.isEnabled("dark-mode")).toBe(true);
      await running.admin("POST", `${developmentOf("dark-mode")}/off`);
      // The proxy follows the service's stream, and its own SDK streams follow the proxy.
      await expect.poll(() => streaming.isEnabled("dark-mode"), { timeout: 3000, interval: 20 }).toBe(false);
    } finally {
      for (const sdk of [direct, polling, streaming]) sdk.destroy();
    }
  });

  it("answers 304 to an SDK that has the current configuration, by ETag and by delta revision", async () => {
    const first = await viaProxy("/api/client/features", CLIENT);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect((await viaProxy("/api/client/features", CLIENT, { "if-none-match": etag })).status).toBe(304);

    const delta = await viaProxy("/api/client/delta", CLIENT);
    expect(delta.status).toBe(200);
    const body = (await delta.json()) as { events: { type: string; features?: { name: string }[] }[] };
    expect(body.events.map((event) => event.type)).toEqual(["hydration"]);
    expect(body.events[0]!.features!.map((feature) => feature.name)).toContain("welcome-banner");
    const revision = delta.headers.get("etag")!;
    expect((await viaProxy("/api/client/delta", CLIENT, { "if-none-match": revision })).status).toBe(304);

    await running.admin("POST", `${developmentOf("welcome-banner")}/off`);
    await expect
      .poll(async () => (await viaProxy("/api/client/delta", CLIENT, { "if-none-match": revision })).status)
      .toBe(200);
    const changed = await viaProxy("/api/client/delta", CLIENT, { "if-none-match": revision });
    const events = ((await changed.json()) as { events: { type: string; feature?: { name: string } }[] })
      .events;
    expect(events.map((event) => [event.type, event.feature?.name])).toEqual([
      ["feature-updated", "welcome-banner"],
    ]);
    await running.admin("POST", `${developmentOf("welcome-banner")}/on`);
  });

  it("refuses unknown tokens, tokens on the other kind's paths, and a token once it is deleted", async () => {
    expect((await viaProxy("/api/client/features", "*:development.nobody")).status).toBe(401);
    expect((await viaProxy("/api/client/features", "")).status).toBe(401);
    expect((await viaProxy("/api/client/features", FRONTEND)).status).toBe(403);
    expect((await viaProxy("/api/frontend", CLIENT)).status).toBe(403);

    const created = await running.admin("POST", "/api-tokens", {
      tokenName: "relay-revoked",
      type: "client",
      environment: "development",
      projects: ["*"],
    });
    expect((await viaProxy("/api/client/features", created.secret)).status).toBe(200);
    await running.admin("DELETE", `/api-tokens/${created.secret}`);
    await expect.poll(async () => (await viaProxy("/api/client/features", created.secret)).status).toBe(401);
  });

  it("follows a scope with another of its tokens once the one it followed with is deleted", async () => {
    const token = async (tokenName: string) =>
      (
        await running.admin("POST", "/api-tokens", {
          tokenName,
          type: "client",
          environment: "development",
          projects: ["default"],
        })
      ).secret as string;
    const [first, second] = [await token("relay-first"), await token("relay-second")];
    // The first founds the scope's configuration upstream; the second is served from it.
    expect((await viaProxy("/api/client/features", first)).status).toBe(200);
    expect((await viaProxy("/api/client/features", second)).status).toBe(200);
    await running.admin("DELETE", `/api-tokens/${first}`);

    await running.admin("POST", `${developmentOf("dark-mode")}/on`);
    const darkMode = async () =>
      (
        (await (await viaProxy("/api/client/features", second)).json()) as {
          features: { name: string; enabled: boolean }[];
        }
      ).features.find((feature) => feature.name === "dark-mode")?.enabled;
    await expect.poll(darkMode, { timeout: 5000, interval: 50 }).toBe(true);
  });

  it("narrows the listing by the SDK's own project and namePrefix filters, as the service does", async () => {
    const names = async (query: string) =>
      (
        (await (await viaProxy(`/api/client/features?${query}`, CLIENT)).json()) as {
          features: { name: string }[];
        }
      ).features
        .map((feature) => feature.name)
        .sort();
    const direct = async (query: string) =>
      (
        (await (
          await fetch(`${running.service.url}/api/client/features?${query}`, {
            headers: { authorization: CLIENT },
          })
        ).json()) as {
          features: { name: string }[];
        }
      ).features
        .map((feature) => feature.name)
        .sort();
    for (const query of [
      "namePrefix=welcome",
      "project=default",
      "project=elsewhere",
      "project=default&namePrefix=dark",
    ]) {
      expect(await names(query), query).toEqual(await direct(query));
    }
    expect(await names("namePrefix=welcome")).toEqual(["welcome-banner"]);
  });

  it("answers 511 to a frontend token of an environment no client token it follows reads", async () => {
    const created = await running.admin("POST", "/api-tokens", {
      tokenName: "relay-production",
      type: "frontend",
      environment: "production",
      projects: ["*"],
    });
    const response = await viaProxy("/api/frontend", created.secret);
    expect(response.status).toBe(511);
    expect(((await response.json()) as { error: string }).error).toMatch(/production/);
  });
});
