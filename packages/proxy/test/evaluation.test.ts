import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ProxyOptions, SignalboxProxy } from "../src/index.js";
import {
  CLIENT_KEY,
  flagDocument,
  type recordingLogger,
  startProxy,
  tenantStrategy,
} from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

interface Toggle {
  name: string;
  enabled: boolean;
  impressionData?: boolean;
  variant: {
    name: string;
    enabled: boolean;
    feature_enabled: boolean;
    payload?: { type: string; value: string };
  };
}

let upstream: FakeUpstream;
const proxies: SignalboxProxy[] = [];
beforeAll(async () => {
  upstream = await FakeUpstream.start(flagDocument());
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await upstream.close();
});

async function proxyWith(options: ProxyOptions = {}): Promise<SignalboxProxy> {
  const proxy = await startProxy(upstream, options);
  proxies.push(proxy);
  return proxy;
}

async function call(
  proxy: SignalboxProxy,
  method: "GET" | "POST",
  url: string,
  {
    payload,
    headers = {},
    remoteAddress,
  }: { payload?: object; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<Toggle[]> {
  const response = await proxy.app.inject({
    method,
    url,
    payload,
    remoteAddress,
    headers: { authorization: CLIENT_KEY, ...headers },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().toggles;
}

const names = (toggles: Toggle[]) => toggles.map((toggle) => toggle.name);
const byName = (toggles: Toggle[], name: string) => toggles.find((toggle) => toggle.name === name);

describe("GET /proxy", () => {
  let proxy: SignalboxProxy;
  beforeAll(async () => {
    proxy = await proxyWith();
  });

  test("returns the enabled flags only, in document order", async () => {
    const toggles = await call(proxy, "GET", "/proxy?sessionId=1");
    expect(toggles.every((toggle) => toggle.enabled)).toBe(true);
    expect(names(toggles)).toEqual(
      expect.arrayContaining(["simple", "colors", "greeting", "named-disabled"]),
    );
    expect(names(toggles)).not.toContain("off");
    expect(names(toggles).indexOf("simple")).toBeLessThan(names(toggles).indexOf("colors"));
  });

  test("reads the context from the query, properties[name] included", async () => {
    const toggles = await call(proxy, "GET", "/proxy?userId=42&properties%5Bregion%5D=Africa");
    expect(names(toggles)).toEqual(expect.arrayContaining(["user-42", "africa"]));
    expect(names(await call(proxy, "GET", "/proxy?userId=7&properties[region]=Europe"))).not.toContain(
      "user-42",
    );
    // An unknown top-level field is a property too.
    expect(names(await call(proxy, "GET", "/proxy?region=Africa"))).toContain("africa");
  });

  test("variants: the fallback, payloads as strings, feature_enabled, a user variant named disabled", async () => {
    const toggles = await call(proxy, "GET", "/proxy");
    expect(byName(toggles, "simple")).toEqual({
      name: "simple",
      enabled: true,
      impressionData: true,
      variant: { name: "disabled", enabled: false, feature_enabled: true },
    });
    expect(byName(toggles, "colors")?.variant).toEqual({
      name: "blue",
      enabled: true,
      feature_enabled: true,
      payload: { type: "json", value: '{"hex":"#00f"}' },
    });
    expect(byName(toggles, "greeting")?.variant.payload).toEqual({ type: "string", value: "Hello!" });
    expect(byName(toggles, "named-disabled")?.variant).toEqual({
      name: "disabled",
      enabled: true,
      feature_enabled: true,
    });
  });

  test("without userId or sessionId, one random stickiness serves every flag of the response; variants follow the address", async () => {
    const outcomes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      for (const [method, payload] of [
        ["GET", undefined],
        ["POST", { context: {} }],
        ["POST", { context: {}, toggles: ["half-of-visitors", "half-of-visitors-twin"] }],
      ] as const) {
        const toggles = await call(proxy, method, "/proxy", { payload });
        const visitor = byName(toggles, "half-of-visitors");
        const on = visitor?.enabled === true;
        expect(byName(toggles, "half-of-visitors-twin")?.enabled === true).toBe(on);
        outcomes.add(on ? visitor!.variant.name : "off");
      }
    }
    // Random per response: some callers are in, some out. The variant's default stickiness
    // reads remoteAddress before drawing, as the Node SDK's does: one caller, one variant.
    expect(outcomes.has("off")).toBe(true);
    expect([...outcomes].filter((outcome) => outcome !== "off")).toHaveLength(1);
  });

  test("a missing sessionId stays missing: session rules see no session", async () => {
    for (let i = 0; i < 10; i++) {
      const toggles = await call(proxy, "POST", "/proxy", {
        payload: { context: {}, toggles: ["half-of-sessions", "any-session"] },
      });
      expect(toggles.map((toggle) => toggle.enabled)).toEqual([false, false]);
      expect(names(await call(proxy, "GET", "/proxy"))).not.toContain("any-session");
    }
    expect(names(await call(proxy, "GET", "/proxy?sessionId=1"))).toContain("any-session");
  });

  test("remoteAddress is the socket address when not trusting proxies, whatever X-Forwarded-For says", async () => {
    const headers = { "x-forwarded-for": "203.0.113.7" };
    expect(names(await call(proxy, "GET", "/proxy", { headers }))).not.toContain("office-ip");
    expect(names(await call(proxy, "GET", "/proxy", { remoteAddress: "203.0.113.7" }))).toContain(
      "office-ip",
    );
  });

  test("the caller's environment is used when none is configured", async () => {
    expect(names(await call(proxy, "GET", "/proxy?environment=production"))).toContain("production-only");
    expect(names(await call(proxy, "GET", "/proxy?environment=development"))).not.toContain(
      "production-only",
    );
  });

  test("an unknown strategy is off", async () => {
    expect(names(await call(proxy, "GET", "/proxy?tenant=a"))).not.toContain("tenant-a");
  });
});

describe("POST /proxy", () => {
  let proxy: SignalboxProxy;
  beforeAll(async () => {
    proxy = await proxyWith();
  });

  test("without toggles: the enabled flags for the body's context, with impressionData", async () => {
    const toggles = await call(proxy, "POST", "/proxy", { payload: { context: { userId: "42" } } });
    expect(names(toggles)).toContain("user-42");
    expect(toggles.every((toggle) => toggle.enabled && typeof toggle.impressionData === "boolean")).toBe(
      true,
    );
    expect(byName(toggles, "simple")?.impressionData).toBe(true);
  });

  test("with toggles: exactly those, off and unknown ones included with the fallback variant", async () => {
    const toggles = await call(proxy, "POST", "/proxy", {
      payload: { toggles: ["off", "simple", "no-such-flag"], context: { properties: { region: "Africa" } } },
    });
    expect(toggles).toEqual([
      {
        name: "off",
        enabled: false,
        impressionData: false,
        variant: { name: "disabled", enabled: false, feature_enabled: false },
      },
      {
        name: "simple",
        enabled: true,
        impressionData: true,
        variant: { name: "disabled", enabled: false, feature_enabled: true },
      },
      {
        name: "no-such-flag",
        enabled: false,
        impressionData: false,
        variant: { name: "disabled", enabled: false, feature_enabled: false },
      },
    ]);
  });

  test("numbers in the context are read as strings", async () => {
    const toggles = await call(proxy, "POST", "/proxy", { payload: { context: { userId: 42 } } });
    expect(names(toggles)).toContain("user-42");
  });
});

describe("/proxy/all", () => {
  test("is 501 unless enableAllEndpoint, after the key check", async () => {
    const proxy = await proxyWith();
    const denied = await proxy.app.inject({ method: "GET", url: "/proxy/all" });
    expect(denied.statusCode).toBe(401);
    for (const method of ["GET", "POST"] as const) {
      const response = await proxy.app.inject({
        method,
        url: "/proxy/all",
        headers: { authorization: CLIENT_KEY },
      });
      expect(response.statusCode).toBe(501);
      expect(response.body).toContain("ENABLE_ALL_ENDPOINT");
    }
  });

  test("with enableAllEndpoint: every flag, on or off, by GET and POST; a list by POST", async () => {
    const proxy = await proxyWith({ enableAllEndpoint: true });
    const all = flagDocument().features.map((feature) => feature.name);
    const fromGet = await call(proxy, "GET", "/proxy/all?userId=42");
    expect(names(fromGet)).toEqual(all);
    expect(byName(fromGet, "off")?.variant).toEqual({
      name: "disabled",
      enabled: false,
      feature_enabled: false,
    });
    expect(names(await call(proxy, "POST", "/proxy/all", { payload: { context: {} } }))).toEqual(all);
    expect(names(await call(proxy, "POST", "/proxy/all", { payload: { toggles: ["off", "x"] } }))).toEqual([
      "off",
      "x",
    ]);
  });
});

describe("options that shape evaluation", () => {
  test("environment is pinned: callers cannot override it", async () => {
    const proxy = await proxyWith({ environment: "production" });
    expect(names(await call(proxy, "GET", "/proxy?environment=development"))).toContain("production-only");
    const posted = await call(proxy, "POST", "/proxy", {
      payload: { context: { environment: "development" } },
    });
    expect(names(posted)).toContain("production-only");
  });

  test("trustProxy true: X-Forwarded-For gives remoteAddress", async () => {
    const proxy = await proxyWith({ trustProxy: true });
    const headers = { "x-forwarded-for": "203.0.113.7" };
    expect(names(await call(proxy, "GET", "/proxy", { headers }))).toContain("office-ip");
    // A remoteAddress the caller sends still wins.
    expect(names(await call(proxy, "GET", "/proxy?remoteAddress=10.0.0.1", { headers }))).not.toContain(
      "office-ip",
    );
  });

  test("trustProxy as CIDR ranges: only forwards from those addresses are believed", async () => {
    const proxy = await proxyWith({ trustProxy: "10.0.0.0/8" });
    const headers = { "x-forwarded-for": "203.0.113.7" };
    const viaTrusted = await call(proxy, "GET", "/proxy", { headers, remoteAddress: "10.1.2.3" });
    expect(names(viaTrusted)).toContain("office-ip");
    const viaStranger = await call(proxy, "GET", "/proxy", { headers, remoteAddress: "192.0.2.1" });
    expect(names(viaStranger)).not.toContain("office-ip");
  });

  test("clientKeysHeaderName moves the key to another header", async () => {
    const proxy = await proxyWith({ clientKeysHeaderName: "X-Client-Key" });
    const inCustom = await proxy.app.inject({
      method: "GET",
      url: "/proxy",
      headers: { "x-client-key": CLIENT_KEY },
    });
    expect(inCustom.statusCode).toBe(200);
    const inAuthorization = await proxy.app.inject({
      method: "GET",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY },
    });
    expect(inAuthorization.statusCode).toBe(401);
  });

  test("proxyBasePath prefixes every route", async () => {
    const proxy = await proxyWith({ proxyBasePath: "base/path/", enableOAS: true });
    expect(await call(proxy, "GET", "/base/path/proxy")).not.toHaveLength(0);
    const health = await proxy.app.inject({ method: "GET", url: "/base/path/proxy/health" });
    expect(health.body).toBe("ok");
    expect((await proxy.app.inject({ method: "GET", url: "/base/path/docs/openapi.json" })).statusCode).toBe(
      200,
    );
    expect(
      (await proxy.app.inject({ method: "GET", url: "/proxy", headers: { authorization: CLIENT_KEY } }))
        .statusCode,
    ).toBe(404);
  });

  test("customStrategies are evaluated by name", async () => {
    const proxy = await proxyWith({ customStrategies: [tenantStrategy] });
    expect(names(await call(proxy, "GET", "/proxy?properties[tenant]=a"))).toContain("tenant-a");
    expect(names(await call(proxy, "GET", "/proxy?properties[tenant]=b"))).not.toContain("tenant-a");
  });

  test("expCustomEnrichers change the context before evaluation, in order", async () => {
    const proxy = await proxyWith({
      expCustomEnrichers: [
        (context) => ({ ...context, userId: "4" }),
        async (context) => ({ ...context, userId: `${context.userId}2` }),
      ],
    });
    expect(names(await call(proxy, "GET", "/proxy"))).toContain("user-42");
  });

  test("an enricher that throws gives 500 with a JSON error, and is logged", async () => {
    const proxy = await proxyWith({
      expCustomEnrichers: [
        () => {
          throw new Error("enricher broke");
        },
      ],
    });
    const response = await proxy.app.inject({
      method: "GET",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY },
    });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toContain("enricher broke");
    expect(
      (proxy.config.logger as ReturnType<typeof recordingLogger>).has("error", "GET /proxy failed"),
    ).toBe(true);
  });
});
