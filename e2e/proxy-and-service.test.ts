import { createProxy, type ProxyOptions, type SignalboxProxy } from "@signalbox/proxy";
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
