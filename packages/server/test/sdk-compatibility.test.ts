import { compile } from "@signalbox/engine";
import { InMemStorageProvider, Unleash } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// The published Node server SDK, pointed at a running service, must see exactly what the
// admin API configured. Flags are made with the same calls an operator's script would use.
describe("the Unleash Node SDK against Signalbox", () => {
  let server: TestServer;
  let sdk: Unleash;
  const admin = async (method: string, path: string, body?: unknown) => {
    const reply = await server.request(`/api/admin${path}`, { method, body });
    if (reply.status >= 300)
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const env = (flag: string) => `/projects/default/features/${flag}/environments/development`;

  beforeAll(async () => {
    server = await startTestServer();
    const segment = await admin("POST", "/segments", {
      name: "pro-plan",
      constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
    });
    await admin("POST", "/projects/default/features", { name: "rollout" });
    await admin("POST", `${env("rollout")}/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "40", stickiness: "userId", groupId: "rollout" },
    });
    await admin("POST", `${env("rollout")}/on`);

    await admin("POST", "/projects/default/features", { name: "pro-only" });
    await admin("POST", `${env("pro-only")}/strategies`, {
      name: "default",
      segments: [segment.id],
      constraints: [{ contextName: "appVersion", operator: "SEMVER_GT", value: "2.0.0" }],
    });
    await admin("POST", `${env("pro-only")}/on`);

    await admin("POST", "/projects/default/features", { name: "colours", type: "experiment" });
    await admin("POST", `${env("colours")}/strategies`, { name: "default" });
    await admin("PUT", `${env("colours")}/variants`, [
      {
        name: "red",
        weight: 500,
        weightType: "variable",
        stickiness: "userId",
        payload: { type: "string", value: "#f00" },
      },
      {
        name: "blue",
        weight: 500,
        weightType: "variable",
        stickiness: "userId",
        payload: { type: "json", value: '{"hex":"#00f"}' },
      },
    ]);
    await admin("POST", `${env("colours")}/on`);

    await admin("POST", "/projects/default/features", { name: "child" });
    await admin("POST", `${env("child")}/strategies`, { name: "default" });
    await admin("POST", "/projects/default/features/child/dependencies", { feature: "pro-only" });
    await admin("POST", `${env("child")}/on`);

    sdk = new Unleash({
      appName: "compat-test",
      url: `${server.url}/api`,
      customHeaders: { Authorization: CLIENT_TOKEN },
      refreshInterval: 100,
      metricsInterval: 200,
      storageProvider: new InMemStorageProvider(),
    });
    sdk.on("error", () => {});
    await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
  });

  afterAll(async () => {
    sdk.destroy();
    await server.close();
  });

  it("evaluates rollouts, constraints, segments, variants and dependencies as configured", async () => {
    const document = (
      await server.request("/api/client/features", {
        token: CLIENT_TOKEN,
        headers: { "unleash-client-spec": "5.1.0" },
      })
    ).body;
    const engine = compile(document);
    let on = 0;
    for (let i = 0; i < 1000; i++) {
      const context = { userId: `user-${i}` };
      const enabled = sdk.isEnabled("rollout", context);
      expect(enabled).toBe(engine.evaluate("rollout", context).enabled);
      if (enabled) on++;
    }
    expect(on).toBeGreaterThan(350);
    expect(on).toBeLessThan(450);

    const pro = { userId: "a", properties: { plan: "pro", appVersion: "2.1.0" } };
    expect(sdk.isEnabled("pro-only", pro)).toBe(true);
    expect(sdk.isEnabled("pro-only", { ...pro, properties: { plan: "free", appVersion: "2.1.0" } })).toBe(
      false,
    );
    expect(sdk.isEnabled("pro-only", { ...pro, properties: { plan: "pro", appVersion: "1.9.0" } })).toBe(
      false,
    );
    expect(sdk.isEnabled("child", pro)).toBe(true);
    expect(sdk.isEnabled("child", { userId: "a" })).toBe(false);

    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const variant = sdk.getVariant("colours", { userId: `user-${i}` });
      expect(variant.enabled).toBe(true);
      expect(variant).toEqual(
        expect.objectContaining(engine.evaluate("colours", { userId: `user-${i}` }).variant),
      );
      seen.add(`${variant.name}=${variant.payload?.value}`);
    }
    expect(seen).toEqual(new Set(["red=#f00", 'blue={"hex":"#00f"}']));
  });

  it("sees a change made while it runs within its refresh interval", async () => {
    const users = Array.from({ length: 20 }, (_, i) => ({ userId: `user-${i}` }));
    expect(users.some((user) => sdk.isEnabled("rollout", user))).toBe(true);
    const changed = new Promise<void>((resolve) => sdk.once("changed", () => resolve()));
    await admin("POST", `${env("rollout")}/off`);
    await changed;
    expect(users.some((user) => sdk.isEnabled("rollout", user))).toBe(false);
  });

  it("in delta mode, follows flag, segment and archive changes event by event", async () => {
    const delta = new Unleash({
      appName: "compat-delta",
      url: `${server.url}/api`,
      customHeaders: { Authorization: CLIENT_TOKEN },
      refreshInterval: 100,
      disableMetrics: true,
      storageProvider: new InMemStorageProvider(),
      experimentalMode: { type: "polling", format: "delta" },
    });
    delta.on("error", () => {});
    const warnings: string[] = [];
    delta.on("warn", (message: string) => warnings.push(message));
    try {
      await new Promise<void>((resolve) => delta.once("synchronized", () => resolve()));
      const pro = { userId: "a", properties: { plan: "pro", appVersion: "2.1.0" } };
      const enterprise = { ...pro, properties: { ...pro.properties, plan: "enterprise" } };
      expect(delta.isEnabled("pro-only", pro)).toBe(true);
      expect(delta.isEnabled("child", pro)).toBe(true);
      expect(delta.isEnabled("pro-only", enterprise)).toBe(false);

      const [segment] = (await admin("GET", "/segments")).segments;
      await admin("PUT", `/segments/${segment.id}`, {
        name: segment.name,
        constraints: [{ contextName: "plan", operator: "IN", values: ["pro", "enterprise"] }],
      });
      await expect.poll(() => delta.isEnabled("pro-only", enterprise), { timeout: 5_000 }).toBe(true);

      await admin("DELETE", "/projects/default/features/child");
      await expect.poll(() => delta.getFeatureToggleDefinition("child"), { timeout: 5_000 }).toBeUndefined();
      expect(delta.isEnabled("pro-only", pro)).toBe(true);
      expect(warnings.filter((message) => message.includes("Unknown event type"))).toEqual([]);
    } finally {
      delta.destroy();
    }
  });

  it("reports metrics that show up in the applications listing and in lastSeenAt", async () => {
    sdk.isEnabled("pro-only", { userId: "metrics" });
    await expect
      .poll(async () => (await admin("GET", "/projects/default/features/pro-only")).environments, {
        timeout: 10_000,
      })
      .toContainEqual(expect.objectContaining({ name: "development", lastSeenAt: expect.any(String) }));
    const apps = await admin("GET", "/metrics/applications");
    expect(apps.applications).toContainEqual(
      expect.objectContaining({
        appName: "compat-test",
        sdkVersion: expect.stringMatching(/^unleash-node-sdk:6\./),
      }),
    );
  });
});
