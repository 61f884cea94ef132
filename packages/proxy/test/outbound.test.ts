import { afterEach, describe, expect, test } from "vitest";
import type { Environment, ProxyOptions, SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, eventually, flagDocument, recordingLogger, startProxy } from "./support/fixtures.js";
import { ForwardProxy } from "./support/forward-proxy.js";
import { FakeUpstream } from "./support/upstream.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function upstream(https = false): Promise<FakeUpstream> {
  const started = await FakeUpstream.start(flagDocument(), { https });
  cleanup.push(() => started.close());
  return started;
}

async function forwardProxy(): Promise<ForwardProxy> {
  const started = await ForwardProxy.start();
  cleanup.push(() => started.close());
  return started;
}

async function proxyOn(
  target: FakeUpstream,
  options: ProxyOptions = {},
  env: Environment = {},
): Promise<SignalboxProxy> {
  const proxy = await startProxy(target, { logger: recordingLogger(), ...options }, { wait: false, env });
  cleanup.push(() => proxy.close());
  return proxy;
}

const logOf = (proxy: SignalboxProxy) => proxy.config.logger as ReturnType<typeof recordingLogger>;

async function servesFlags(proxy: SignalboxProxy): Promise<void> {
  await proxy.ready;
  const response = await proxy.app.inject({
    method: "GET",
    url: "/proxy",
    headers: { authorization: CLIENT_KEY },
  });
  expect(response.statusCode).toBe(200);
}

describe("httpOptions.rejectUnauthorized", () => {
  test("by default an upstream with an untrusted certificate is refused", async () => {
    const secure = await upstream(true);
    const proxy = await proxyOn(secure);
    await eventually(() => expect(logOf(proxy).has("warn", "certificate")).toBe(true));
    expect(secure.requestsTo("/api/client/features")).toHaveLength(0);
    expect((await proxy.app.inject({ method: "GET", url: "/proxy/health" })).statusCode).toBe(503);
  });

  test("false accepts it", async () => {
    const secure = await upstream(true);
    await servesFlags(await proxyOn(secure, { httpOptions: { rejectUnauthorized: false } }));
  });

  test("HTTP_OPTIONS_REJECT_UNAUTHORIZED=false accepts it too", async () => {
    const secure = await upstream(true);
    await servesFlags(await proxyOn(secure, {}, { HTTP_OPTIONS_REJECT_UNAUTHORIZED: "false" }));
  });
});

describe("outgoing proxies", () => {
  test("HTTP_PROXY relays the calls to an http upstream as plain forward requests", async () => {
    const plain = await upstream();
    const relay = await forwardProxy();
    const proxy = await proxyOn(plain, {}, { HTTP_PROXY: relay.url });
    await servesFlags(proxy);
    expect(relay.forwarded).toContainEqual(expect.stringMatching(`^${plain.url}/client/features`));
    expect(relay.tunnels).toHaveLength(0);
  });

  test("NO_PROXY exempts the hosts it lists", async () => {
    const plain = await upstream();
    const relay = await forwardProxy();
    await servesFlags(await proxyOn(plain, {}, { HTTP_PROXY: relay.url, NO_PROXY: "localhost,127.0.0.1" }));
    expect(relay.forwarded).toHaveLength(0);
  });

  test("HTTPS_PROXY carries the calls to an https upstream", async () => {
    const secure = await upstream(true);
    const relay = await forwardProxy();
    const proxy = await proxyOn(
      secure,
      { httpOptions: { rejectUnauthorized: false } },
      { HTTPS_PROXY: relay.url },
    );
    await servesFlags(proxy);
    expect(relay.tunnels).toContain(new URL(secure.url).host);
  });

  test("credentials in a proxy's URL go to the proxy, decoded, in Proxy-Authorization", async () => {
    const plain = await upstream();
    const secure = await upstream(true);
    const relay = await forwardProxy();
    const withCredentials = relay.url.replace("http://", "http://user:p%40ss@");
    const expected = `Basic ${Buffer.from("user:p@ss").toString("base64")}`;
    await servesFlags(await proxyOn(plain, {}, { HTTP_PROXY: withCredentials }));
    await servesFlags(
      await proxyOn(secure, { httpOptions: { rejectUnauthorized: false } }, { HTTPS_PROXY: withCredentials }),
    );
    expect(relay.forwarded.length).toBeGreaterThan(0);
    expect(relay.tunnels.length).toBeGreaterThan(0);
    expect(new Set(relay.credentials)).toEqual(new Set([expected]));
    const forwardedHeaders = plain.requestsTo("/api/client/features").map((request) => request.headers);
    expect(forwardedHeaders.every((headers) => headers.authorization === "upstream-token")).toBe(true);
  });

  test("HTTPS_PROXY is not used for an http upstream", async () => {
    const plain = await upstream();
    const relay = await forwardProxy();
    await servesFlags(await proxyOn(plain, {}, { HTTPS_PROXY: relay.url }));
    expect(relay.tunnels).toHaveLength(0);
  });
});
