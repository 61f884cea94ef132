import { createProxy, type SignalboxProxy } from "@signalbox/proxy";
import type { RunningServer } from "@signalbox/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Admin,
  adminOf,
  browserSdkSeesTheService,
  CLIENT,
  createBrowserFlags,
  developmentOf,
  startService,
} from "./support/service.js";

const CLIENT_KEY = "e2e-browser-key";

// A browser app's path through Signalbox: the browser SDK asks the proxy, the proxy
// evaluates what it synced from the service, and usage flows back to the service.
describe("browser SDK → proxy → flag service", () => {
  let service: RunningServer;
  let admin: Admin;
  let proxy: SignalboxProxy;
  let proxyUrl: string;

  beforeAll(async () => {
    service = await startService();
    admin = adminOf(service);
    await createBrowserFlags(admin);
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
    await browserSdkSeesTheService(admin, `${proxyUrl}/proxy`, CLIENT_KEY);
  });
});

// The proxy follows the service's event stream: a change reaches browsers through it long
// before the proxy's next poll would have fetched it.
describe("proxy following the flag service by streaming", () => {
  let service: RunningServer;
  let admin: Admin;
  let proxy: SignalboxProxy;

  beforeAll(async () => {
    service = await startService();
    admin = adminOf(service);
    await createBrowserFlags(admin);
    proxy = await createProxy({
      serviceUrl: `${service.url}/api`,
      serviceApiToken: CLIENT,
      clientKeys: [CLIENT_KEY],
      refreshInterval: 600_000,
      logLevel: "error",
    });
    await proxy.ready;
  });

  afterAll(async () => {
    await proxy?.close();
    await service?.close();
  });

  const darkMode = async () => {
    const response = await proxy.app.inject({
      method: "GET",
      url: "/proxy?userId=alice",
      headers: { authorization: CLIENT_KEY },
    });
    return response.json().toggles.some((toggle: { name: string }) => toggle.name === "dark-mode");
  };

  it("serves a change made in the service within moments, with no poll due for ten minutes", async () => {
    expect(await darkMode()).toBe(false);
    await admin("POST", `${developmentOf("dark-mode")}/on`);
    const deadline = Date.now() + 3000;
    while (!(await darkMode()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await darkMode()).toBe(true);
  });
});
