import { describe, expect, test } from "vitest";
import { createContext, enrichContext } from "../src/context.js";
import { parseQuery } from "../src/querystring.js";

describe("parseQuery", () => {
  test("flat fields and properties[name], with brackets encoded or not", () => {
    expect({
      ...parseQuery("userId=7&properties%5Bregion%5D=Africa&properties[plan]=pro+plus&x=%E2%9C%93"),
    }).toEqual({
      userId: "7",
      properties: { region: "Africa", plan: "pro plus" },
      x: "✓",
    });
  });

  test("a name given twice keeps its first value; malformed escapes stay as sent", () => {
    expect({ ...parseQuery("a=1&a=2&b=%zz&c") }).toEqual({ a: "1", b: "%zz", c: "" });
  });

  test("properties given as a string stays a string, so validation can refuse it", () => {
    expect(parseQuery("properties=oops&properties[a]=b").properties).toBe("oops");
  });

  test("__proto__ is an ordinary name", () => {
    const query = parseQuery("__proto__=x&properties[__proto__]=y");
    expect(Object.getOwnPropertyDescriptor(query, "__proto__")?.value).toBe("x");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("createContext", () => {
  const settings = { appName: "service-proxy", environment: undefined };
  const ip = () => "198.51.100.1";

  test("known fields stay on top, unknown ones move into properties, properties win", () => {
    const context = createContext(
      { userId: "42", tenantId: "me", region: "EU", properties: { region: "Africa" } },
      ip,
      settings,
    );
    expect(context).toMatchObject({
      appName: "service-proxy",
      environment: "default",
      userId: "42",
      remoteAddress: "198.51.100.1",
      properties: { tenantId: "me", region: "Africa" },
    });
    expect(context).not.toHaveProperty("tenantId");
  });

  test("empty fields are dropped and an invalid currentTime too", () => {
    const context = createContext({ userId: "", sessionId: "s", currentTime: "not a date" }, ip, settings);
    expect(context.userId).toBeUndefined();
    expect(context.currentTime).toBeUndefined();
    expect(context.sessionId).toBe("s");
    expect(createContext({ currentTime: "2025-01-02T03:04:05+01:00" }, ip, settings).currentTime).toBe(
      "2025-01-02T02:04:05.000Z",
    );
  });

  test("the client's address is IPv4 without its IPv6 mapping", () => {
    expect(createContext({}, () => "::ffff:203.0.113.7", settings).remoteAddress).toBe("203.0.113.7");
    expect(createContext({}, () => "2001:db8::1", settings).remoteAddress).toBe("2001:db8::1");
  });

  test("a caller's appName and remoteAddress win over the defaults", () => {
    const context = createContext({ appName: "web", remoteAddress: "10.0.0.1" }, ip, settings);
    expect([context.appName, context.remoteAddress]).toEqual(["web", "10.0.0.1"]);
  });

  test("a configured environment cannot be overridden", () => {
    const pinned = createContext({ environment: "dev" }, ip, { ...settings, environment: "production" });
    expect(pinned.environment).toBe("production");
    expect(createContext({ environment: "dev" }, ip, settings).environment).toBe("dev");
  });

  test("a missing sessionId is not invented", () => {
    expect(createContext({ userId: "1" }, ip, settings)).not.toHaveProperty("sessionId");
  });

  test("an array for properties does not crash", () => {
    expect(createContext({ properties: ["a"] }, ip, settings).properties).toBeUndefined();
  });

  test("enrichers run in order on the previous result", async () => {
    const enriched = await enrichContext({ userId: "1" }, [
      (context) => ({ ...context, userId: `${context.userId}2` }),
      async (context) => ({ ...context, userId: `${context.userId}3` }),
    ]);
    expect(enriched.userId).toBe("123");
  });
});
