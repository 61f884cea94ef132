import { describe, expect, it } from "vitest";
import { ApiError, type FrontendContextRules, frontendContext } from "../src/index.js";

const lenient: FrontendContextRules = { appName: "proxy", plainIpv4: true, refuseNonScalars: false };
const strict: FrontendContextRules = {
  appName: "frontend-api",
  clock: () => new Date("2030-01-01T00:00:00Z"),
  plainIpv4: false,
  refuseNonScalars: true,
};
const caller = () => "::ffff:203.0.113.7";

describe("frontendContext, shared rules", () => {
  it("keeps well-known fields on top and files the rest, flat properties[name] keys too, as properties", () => {
    const context = frontendContext(
      { userId: 42, plan: "pro", beta: false, "properties[region]": "EU", properties: { tier: 1 } },
      caller,
      lenient,
    );
    expect(context).toEqual({
      appName: "proxy",
      environment: "default",
      userId: "42",
      remoteAddress: "203.0.113.7",
      properties: { plan: "pro", beta: "false", region: "EU", tier: "1" },
    });
  });

  it("lets properties sent win over same-named fields, and drops empty values", () => {
    const context = frontendContext(
      { region: "EU", properties: { region: "Africa", empty: null }, userId: "", sessionId: null },
      caller,
      lenient,
    );
    expect(context.properties).toEqual({ region: "Africa" });
    expect(context).not.toHaveProperty("userId");
    expect(context).not.toHaveProperty("sessionId");
  });

  it("takes appName, environment and remoteAddress as sent", () => {
    const context = frontendContext(
      { appName: "web", environment: "dev", remoteAddress: "10.0.0.1" },
      caller,
      strict,
    );
    expect([context.appName, context.environment, context.remoteAddress]).toEqual(["web", "dev", "10.0.0.1"]);
  });

  it("treats __proto__ as an ordinary name", () => {
    const context = frontendContext(JSON.parse('{"__proto__": "x"}'), caller, lenient);
    expect(Object.getOwnPropertyDescriptor(context.properties, "__proto__")?.value).toBe("x");
  });
});

describe("frontendContext, the rules each server chooses", () => {
  it("pins the environment when told to", () => {
    expect(
      frontendContext({ environment: "dev" }, caller, { ...lenient, environment: "prod" }).environment,
    ).toBe("prod");
  });

  it("takes a currentTime sent, or with a clock files it as a property", () => {
    const sent = { currentTime: "2025-01-02T03:04:05+01:00" };
    expect(frontendContext(sent, caller, lenient).currentTime).toBe("2025-01-02T02:04:05.000Z");
    expect(frontendContext({ currentTime: "soon" }, caller, lenient)).not.toHaveProperty("currentTime");
    const clocked = frontendContext(sent, caller, strict);
    expect(clocked.currentTime).toEqual(new Date("2030-01-01T00:00:00Z"));
    expect(clocked.properties).toEqual({ currentTime: "2025-01-02T03:04:05+01:00" });
  });

  it("strips the IPv6 mapping of an IPv4 caller only when told to", () => {
    expect(frontendContext({}, caller, lenient).remoteAddress).toBe("203.0.113.7");
    expect(frontendContext({}, caller, strict).remoteAddress).toBe("::ffff:203.0.113.7");
    expect(frontendContext({}, () => "2001:db8::1", lenient).remoteAddress).toBe("2001:db8::1");
  });

  it("leaves out or refuses values no constraint can compare", () => {
    const fields = { userId: { nested: true }, tags: ["a"], properties: { plan: ["x"] } };
    const context = frontendContext(fields, caller, lenient);
    expect(context).not.toHaveProperty("userId");
    expect(context.properties ?? {}).toEqual({});
    expect(() => frontendContext({ tags: ["a"] }, caller, strict)).toThrow(ApiError);
    expect(() => frontendContext({ properties: { plan: {} } }, caller, strict)).toThrow(
      "context.properties.plan must be a string, number or boolean",
    );
  });
});
