import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ProxyOptions, SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, eventually, flagDocument, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

let upstream: FakeUpstream;
const proxies: SignalboxProxy[] = [];
beforeAll(async () => {
  upstream = await FakeUpstream.start(flagDocument());
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await upstream.close();
});

async function proxyWith(options: ProxyOptions = {}, env = {}): Promise<SignalboxProxy> {
  const proxy = await startProxy(upstream, options, { env });
  proxies.push(proxy);
  return proxy;
}

const get = (proxy: SignalboxProxy, url: string, headers: Record<string, string> = {}) =>
  proxy.app.inject({ method: "GET", url, headers: { authorization: CLIENT_KEY, ...headers } });

describe("caching headers", () => {
  let proxy: SignalboxProxy;
  beforeAll(async () => {
    proxy = await proxyWith();
  });

  test("results carry Cache-Control, a weak ETag, Vary and the JSON content type", async () => {
    for (const response of [
      await get(proxy, "/proxy?sessionId=1"),
      await proxy.app.inject({
        method: "POST",
        url: "/proxy",
        headers: { authorization: CLIENT_KEY },
        payload: {},
      }),
    ]) {
      expect(response.headers["cache-control"]).toBe("public, max-age=2");
      expect(response.headers.etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]{16}"$/);
      expect(response.headers.vary).toContain("authorization");
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(Number(response.headers["content-length"])).toBe(response.rawPayload.length);
    }
  });

  test("a GET whose If-None-Match holds the ETag gets 304 without a body", async () => {
    const first = await get(proxy, "/proxy?userId=42&sessionId=1");
    const again = await get(proxy, "/proxy?userId=42&sessionId=1", {
      "if-none-match": first.headers.etag as string,
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  test("a new context never gets a stale 304: the ETag follows the evaluated result", async () => {
    const first = await get(proxy, "/proxy?userId=42&sessionId=1");
    const otherUser = await get(proxy, "/proxy?userId=7&sessionId=1", {
      "if-none-match": first.headers.etag as string,
    });
    expect(otherUser.statusCode).toBe(200);
    expect(otherUser.headers.etag).not.toBe(first.headers.etag);
    expect(otherUser.json().toggles.map((toggle: { name: string }) => toggle.name)).not.toContain("user-42");
  });

  test("the ETag changes when the upstream configuration changes the result", async () => {
    const document = flagDocument();
    const local = await FakeUpstream.start(document);
    const changing = await startProxy(local);
    try {
      const before = await get(changing, "/proxy?sessionId=1");
      document.features[0]!.enabled = false;
      local.setDocument(document);
      const { etag: stale } = before.headers;
      const after = await eventually(async () => {
        const response = await get(changing, "/proxy?sessionId=1", { "if-none-match": stale as string });
        expect(response.statusCode).toBe(200);
        return response;
      });
      expect(after.headers.etag).not.toBe(stale);
      expect(after.json().toggles.map((toggle: { name: string }) => toggle.name)).not.toContain("simple");
    } finally {
      await changing.close();
      await local.close();
    }
  });

  test("POST answers carry the ETag but never 304", async () => {
    const request = { method: "POST" as const, url: "/proxy", payload: { context: { sessionId: "1" } } };
    const first = await proxy.app.inject({ ...request, headers: { authorization: CLIENT_KEY } });
    const again = await proxy.app.inject({
      ...request,
      headers: { authorization: CLIENT_KEY, "if-none-match": first.headers.etag as string },
    });
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe(first.headers.etag);
  });
});

describe("CORS", () => {
  const preflight = (proxy: SignalboxProxy, origin = "https://app.test") =>
    proxy.app.inject({
      method: "OPTIONS",
      url: "/proxy",
      headers: {
        origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization,unleash-appname,unleash-connection-id,unleash-sdk",
      },
    });

  test("defaults: any origin, GET and POST, requested headers reflected, ETag exposed, cached 172800 s", async () => {
    const proxy = await proxyWith();
    const response = await preflight(proxy);
    expect(response.statusCode).toBe(204);
    expect(response.headers).toMatchObject({
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": "authorization,unleash-appname,unleash-connection-id,unleash-sdk",
      "access-control-max-age": "172800",
    });
    expect(response.headers["access-control-allow-credentials"]).toBeUndefined();
    const actual = await get(proxy, "/proxy", { origin: "https://app.test" });
    expect(actual.headers["access-control-allow-origin"]).toBe("*");
    expect(actual.headers["access-control-expose-headers"]).toBe("ETag");
  });

  test("every cors option in code", async () => {
    const proxy = await proxyWith({
      cors: {
        origin: ["https://a.test", "https://b.test"],
        methods: "GET",
        allowedHeaders: "authorization",
        exposedHeaders: "ETag, X-Custom",
        credentials: true,
        maxAge: 60,
        optionsSuccessStatus: 200,
      },
    });
    const allowed = await preflight(proxy, "https://b.test");
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers).toMatchObject({
      "access-control-allow-origin": "https://b.test",
      "access-control-allow-methods": "GET",
      "access-control-allow-headers": "authorization",
      "access-control-allow-credentials": "true",
      "access-control-max-age": "60",
    });
    expect(
      (await preflight(proxy, "https://evil.test")).headers["access-control-allow-origin"],
    ).toBeUndefined();
    const actual = await get(proxy, "/proxy", { origin: "https://a.test" });
    expect(actual.headers["access-control-allow-origin"]).toBe("https://a.test");
    expect(actual.headers["access-control-expose-headers"]).toBe("ETag, X-Custom");
    expect(actual.headers.vary).toContain("Origin");
  });

  test("cors options from the environment", async () => {
    const proxy = await proxyWith(
      {},
      { CORS_ORIGIN: "https://env.test", CORS_MAX_AGE: "5", CORS_CREDENTIALS: "true" },
    );
    const response = await preflight(proxy, "https://env.test");
    expect(response.headers).toMatchObject({
      "access-control-allow-origin": "https://env.test",
      "access-control-max-age": "5",
      "access-control-allow-credentials": "true",
    });
  });

  test("preflightContinue hands the preflight to the routes instead of answering it", async () => {
    const proxy = await proxyWith({ cors: { preflightContinue: true } });
    const response = await preflight(proxy);
    // Answered by the route (200), not by the CORS layer with optionsSuccessStatus (204).
    expect(response.statusCode).toBe(200);
  });
});
