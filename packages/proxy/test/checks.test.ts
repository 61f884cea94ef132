import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, flagDocument, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

const NOT_READY = /not ready/;

/** What a caller gets on a path the proxy does not have: 404, whatever it sends and whatever the state. */
async function expectNotFoundForEveryone(proxy: SignalboxProxy) {
  const calls = [
    { method: "GET", url: "/proxy/nope", headers: {} },
    { method: "GET", url: "/proxy/nope?userId=1", headers: { authorization: CLIENT_KEY } },
    { method: "GET", url: "/api/admin/features", headers: { authorization: "wrong" } },
    { method: "DELETE", url: "/proxy", headers: { authorization: CLIENT_KEY } },
    {
      method: "POST",
      url: "/api/client/features",
      headers: { authorization: CLIENT_KEY, "content-type": "application/json" },
      payload: "{oops",
    },
    { method: "POST", url: "/nope", headers: { "content-type": "text/plain" }, payload: "x" },
  ] as const;
  for (const call of calls) {
    const response = await proxy.app.inject(call);
    expect(response.statusCode, `${call.method} ${call.url}`).toBe(404);
    expect(response.json().error).toBe(
      `Not found: ${call.method} ${call.url.split("?")[0]}. The proxy's routes start with /proxy, those for the flag service's tokens with /api/client and /api/frontend, and OpenFeature's with /ofrep/v1.`,
    );
  }
}

describe("before the first synchronisation", () => {
  let upstream: FakeUpstream;
  let proxy: SignalboxProxy;
  beforeAll(async () => {
    upstream = await FakeUpstream.start(flagDocument());
    upstream.faults.set("/api/client/features", 500);
    proxy = await startProxy(
      upstream,
      { enableAllEndpoint: true, enableOAS: true, expServerSideSdkConfig: { tokens: ["server"] } },
      { wait: false },
    );
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  test.each([
    ["GET", "/proxy"],
    ["POST", "/proxy"],
    ["GET", "/proxy/all"],
    ["POST", "/proxy/all"],
    ["GET", "/proxy/health"],
    ["GET", "/proxy/internal-backstage/prometheus"],
    ["GET", "/proxy/client/features"],
    ["POST", "/proxy/client/register"],
    ["POST", "/proxy/client/metrics"],
    ["GET", "/docs/openapi.json"],
  ] as const)("%s %s answers 503 in plain text, key or not", async (method, url) => {
    const payload = url.includes("client/")
      ? url.endsWith("register")
        ? { appName: "a", interval: 1, started: 0, strategies: [] }
        : { appName: "a", instanceId: "i", bucket: { start: new Date(), stop: new Date(), toggles: {} } }
      : undefined;
    for (const headers of [{}, { authorization: CLIENT_KEY }]) {
      const response = await proxy.app.inject({ method, url, headers, payload });
      expect(response.statusCode).toBe(503);
      expect(response.headers["content-type"]).toMatch(/^text\/plain/);
      expect(response.body).toMatch(NOT_READY);
    }
  });

  test("a CORS preflight passes without a key", async () => {
    const response = await proxy.app.inject({
      method: "OPTIONS",
      url: "/proxy",
      headers: { origin: "https://app.test", "access-control-request-method": "GET" },
    });
    expect(response.statusCode).toBe(204);
  });

  test("an unknown path is 404 for every caller, not 503", async () => {
    await expectNotFoundForEveryone(proxy);
  });

  test("validation comes before readiness", async () => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { "content-type": "application/json" },
      payload: "{oops",
    });
    expect(response.statusCode).toBe(400);
  });
});

describe("once ready", () => {
  let upstream: FakeUpstream;
  let proxy: SignalboxProxy;
  beforeAll(async () => {
    upstream = await FakeUpstream.start(flagDocument());
    proxy = await startProxy(upstream);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  test("an unknown path is 404 for every caller, before the key is checked", async () => {
    await expectNotFoundForEveryone(proxy);
  });

  test("a missing or unknown key gets 401", async () => {
    for (const headers of [{}, { authorization: "wrong" }, { authorization: `Bearer ${CLIENT_KEY}` }]) {
      const response = await proxy.app.inject({ method: "GET", url: "/proxy", headers });
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe("Unauthorized");
    }
  });

  test("a body that is not JSON gets 400 with a JSON error", async () => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY, "content-type": "application/json" },
      payload: '{"context": {',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/unable to parse/);
  });

  test.each([
    ['{"toggles": "simple"}', "toggles"],
    ['{"toggles": ["simple", null]}', "toggles/1"],
    ['{"toggles": [true]}', "toggles/0"],
    ['{"context": "me"}', "context"],
    ['{"context": {"properties": "flat"}}', "properties"],
    ["[1]", "body"],
  ])("a body with the wrong shape (%s) gets 400 naming the field", async (payload, field) => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY, "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toContain(field);
    expect(response.json().validation).toBeInstanceOf(Array);
  });

  test("properties given as a plain query parameter gets 400", async () => {
    const response = await proxy.app.inject({
      method: "GET",
      url: "/proxy?properties=string",
      headers: { authorization: CLIENT_KEY },
    });
    expect(response.statusCode).toBe(400);
  });

  test("a body that is not JSON by its content type gets 415 and no body", async () => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY, "content-type": "text/plain" },
      payload: "context",
    });
    expect(response.statusCode).toBe(415);
    expect(response.body).toBe("");
  });

  test.each([
    ["no content type", {}, '{"context":{"userId":"42"}}'],
    ["JSON with a charset", { "content-type": "application/json; charset=utf-8" }, "{}"],
    ["no body at all", {}, undefined],
    ["an empty JSON body", { "content-type": "application/json" }, ""],
    ["unknown fields", { "content-type": "application/json" }, '{"blah":"hello"}'],
  ])("POST with %s is accepted", async (_, headers, payload) => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY, ...headers },
      payload,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().toggles.length).toBeGreaterThan(0);
  });
});
