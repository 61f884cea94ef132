import { createProxy, type SignalboxProxy } from "@signalbox/proxy";
import { loadConfig, type RunningServer, startServer } from "@signalbox/server";
import { UnleashClient } from "unleash-proxy-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ADMIN = "*:*.e2e-admin";
const CLIENT = "*:development.e2e-client";
const CLIENT_KEY = "e2e-browser-key";

// A browser app's path through Signalbox: the browser SDK asks the proxy, the proxy
// evaluates what it synced from the service, and usage flows back to the service.
describe("browser SDK → proxy → flag service", () => {
  let service: RunningServer;
  let proxy: SignalboxProxy;
  let proxyUrl: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}/api/admin${path}`, {
      method,
      headers: {
        authorization: ADMIN,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const env = (flag: string) => `/projects/default/features/${flag}/environments/development`;

  beforeAll(async () => {
    service = await startServer(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: "memory://",
        LOG_LEVEL: "silent",
        INIT_ADMIN_API_TOKENS: ADMIN,
        INIT_CLIENT_API_TOKENS: CLIENT,
      }),
    );
    await admin("POST", "/projects/default/features", { name: "welcome-banner" });
    await admin("POST", `${env("welcome-banner")}/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "100", stickiness: "default", groupId: "welcome-banner" },
      constraints: [{ contextName: "userId", operator: "IN", values: ["alice", "bob"] }],
    });
    await admin("PUT", `${env("welcome-banner")}/variants`, [
      {
        name: "warm",
        weight: 1000,
        weightType: "variable",
        stickiness: "default",
        payload: { type: "json", value: '{"tone":"warm"}' },
      },
    ]);
    await admin("POST", `${env("welcome-banner")}/on`);
    await admin("POST", "/projects/default/features", { name: "dark-mode" });

    proxy = await createProxy({
      serviceUrl: `${service.url}/api`,
      serviceApiToken: CLIENT,
      clientKeys: [CLIENT_KEY],
      refreshInterval: 100,
      metricsInterval: 200,
      logLevel: "error",
    });
    proxyUrl = await proxy.listen({ port: 0, host: "127.0.0.1" });
    await proxy.ready;
  });

  afterAll(async () => {
    await proxy?.close();
    await service?.close();
  });

  it("serves the browser SDK the flags, variants and payloads configured in the service, and later changes", async () => {
    const client = new UnleashClient({
      url: `${proxyUrl}/proxy`,
      clientKey: CLIENT_KEY,
      appName: "e2e-web",
      refreshInterval: 1,
      metricsInterval: 1,
      context: { userId: "alice" },
    });
    try {
      await new Promise<void>((resolve) => {
        client.on("ready", () => resolve());
        void client.start();
      });
      expect(client.isEnabled("welcome-banner")).toBe(true);
      expect(client.getVariant("welcome-banner")).toMatchObject({
        name: "warm",
        enabled: true,
        payload: { type: "json", value: '{"tone":"warm"}' },
      });
      expect(client.isEnabled("dark-mode")).toBe(false);

      await client.updateContext({ userId: "carol" });
      expect(client.isEnabled("welcome-banner")).toBe(false);
      await client.updateContext({ userId: "alice" });

      await admin("POST", `${env("dark-mode")}/strategies`, { name: "default" });
      await admin("POST", `${env("dark-mode")}/on`);
      await expect.poll(() => client.isEnabled("dark-mode"), { timeout: 10_000, interval: 100 }).toBe(true);

      // What the SDK counted reaches the service through the proxy.
      await expect
        .poll(async () => (await admin("GET", "/projects/default/features/welcome-banner")).environments, {
          timeout: 15_000,
          interval: 250,
        })
        .toContainEqual(expect.objectContaining({ name: "development", lastSeenAt: expect.any(String) }));
    } finally {
      client.stop();
    }
  });
});
