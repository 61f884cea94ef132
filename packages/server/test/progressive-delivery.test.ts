import { InMemStorageProvider, Unleash } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../src/config.js";
import { type Receiver, startReceiver } from "./addons-receiver.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// Progressive delivery as a team would run it, with the published Node SDK: an app counts
// its errors through `unleash.impactMetrics`, a release plan goes 10% → 50% → 100% on its
// own while they stay low, and a safeguard stops it when they rise: the plan paused, or the
// flag switched off. What the SDK serves, the events and the addon's delivery show it.

const BASE = "/api/admin/projects/default";
const MINUTE_MS = 500;
const METRICS_MS = 200;
const EVALUATION_MS = 250;
const WINDOW_MS = 1500;
/** Errors a second past which the safeguards act. */
const THRESHOLD = 50;

describe("progressive delivery with the Node SDK", () => {
  let server: TestServer;
  let receiver: Receiver;
  let sdk: Unleash;
  /** Errors the app counts every 50 ms, per counter. */
  const errorsPerTick: Record<string, number> = { errors: 0, search_errors: 0 };
  let ticking: NodeJS.Timeout;

  beforeAll(async () => {
    const defaults = defaultConfig();
    server = await startTestServer("pglite", undefined, {
      releases: { minuteMs: MINUTE_MS, evaluationMs: EVALUATION_MS, windowMs: WINDOW_MS },
      impactMetrics: { ...defaults.impactMetrics, resolutionSeconds: 1 },
      integrations: { ...defaults.integrations, allowPrivateUrl: true },
    });
    receiver = await startReceiver();
    const addon = await server.request("/api/admin/addons", {
      method: "POST",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `${receiver.url}/hook` },
        events: ["safeguard-triggered", "release-plan-progressions-paused"],
      },
    });
    expect(addon.status).toBe(201);
    sdk = new Unleash({
      appName: "shop",
      url: `${server.url}/api`,
      customHeaders: { Authorization: CLIENT_TOKEN },
      experimentalMode: { type: "streaming" },
      metricsInterval: METRICS_MS,
      storageProvider: new InMemStorageProvider(),
      skipInstanceCountWarning: true,
    });
    sdk.on("error", () => {});
    sdk.impactMetrics.defineCounter("errors", "Errors the checkout answered");
    sdk.impactMetrics.defineCounter("search_errors", "Errors the search answered");
    ticking = setInterval(() => {
      for (const [name, count] of Object.entries(errorsPerTick)) {
        if (count > 0) sdk.impactMetrics.incrementCounter(name, count);
      }
    }, 50);
    await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
  });
  afterAll(async () => {
    clearInterval(ticking);
    sdk?.destroy();
    await receiver?.close();
    await server?.close();
  });

  const env = (flag: string) => `${BASE}/features/${flag}/environments/development`;
  const safeguard = (counter: string) => ({
    impactMetric: {
      metricName: `unleash_counter_${counter}`,
      timeRange: "hour",
      aggregationMode: "rps",
      labelSelectors: { appName: ["shop"] },
    },
    triggerCondition: { operator: ">", threshold: THRESHOLD },
  });
  const newFlag = async (name: string) => {
    expect((await server.request(`${BASE}/features`, { method: "POST", body: { name } })).status).toBe(200);
  };
  const switchOn = async (name: string) => {
    expect((await server.request(`${env(name)}/on`, { method: "POST" })).status).toBe(200);
  };
  /** What the SDK serves for the flag: its rollout, or "off". */
  const seen = (flag: string) => {
    const definition = sdk.getFeatureToggleDefinition(flag);
    if (!definition?.enabled) return "off";
    return String(definition.strategies?.[0]?.parameters?.rollout ?? "none");
  };
  /** Every rollout the SDK served, in order, from now until `done` answers true. */
  const watch = (flag: string) => {
    const steps: string[] = [];
    const timer = setInterval(() => {
      const now = seen(flag);
      if (steps.at(-1) !== now) steps.push(now);
    }, 10);
    return { steps, stop: () => clearInterval(timer) };
  };
  const eventsOf = async (flag: string) =>
    (
      await server.db
        .selectFrom("events")
        .select(["type", "data"])
        .where("feature_name", "=", flag)
        .orderBy("id")
        .execute()
    ).map((event) => event.type);

  it("advances while errors stay low, and pauses the plan when they rise", async () => {
    const flag = "checkout";
    await newFlag(flag);
    const { body: template } = await server.request("/api/admin/release-plan-templates", {
      method: "POST",
      body: {
        name: "three steps",
        milestones: [{ percent: 10, minutes: 3 }, { percent: 50, minutes: 20 }, { percent: 100 }].map(
          ({ percent, minutes }, index) => ({
            name: `${percent}%`,
            sortOrder: index,
            strategies: [
              { name: "flexibleRollout", parameters: { rollout: String(percent), stickiness: "default" } },
            ],
            ...(minutes && { transitionCondition: { intervalMinutes: minutes } }),
          }),
        ),
      },
    });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: template.id },
    });
    const guard = await server.request(`${env(flag)}/release-plans/${plan.id}/safeguards`, {
      method: "PUT",
      body: safeguard("errors"),
    });
    expect(guard.status).toBe(200);
    expect(guard.body).toMatchObject({ action: { type: "pauseReleasePlanProgressions", id: plan.id } });

    errorsPerTick.errors = 1; // 20 a second: below the threshold
    const watching = watch(flag);
    const started = await server.request(
      `${env(flag)}/release-plans/${plan.id}/milestones/${plan.milestones[0].id}/start`,
      { method: "POST" },
    );
    expect(started.status).toBe(200);
    // Switched on once it serves the first step, so that no one gets more than 10% first.
    await switchOn(flag);
    await expect.poll(() => watching.steps.at(-1), { timeout: 10_000, interval: 10 }).toBe("50");
    // It went on by itself, the safeguard watching all along.
    expect(watching.steps).toEqual(["off", "10", "50"]);

    errorsPerTick.errors = 20; // 400 a second
    const raised = Date.now();
    const pausedAt = async () => {
      const { body } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
      return body.milestones[1].pausedAt as string | null;
    };
    await expect.poll(pausedAt, { timeout: 10_000, interval: 25 }).not.toBeNull();
    // Within a report, the window filling past the threshold, and one evaluation period.
    expect(Date.now() - raised).toBeLessThan(METRICS_MS + WINDOW_MS + EVALUATION_MS + 1000);
    errorsPerTick.errors = 0;

    const { body: paused } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
    expect(paused.activeMilestoneId).toBe(plan.milestones[1].id);
    expect(paused.milestones[1].progressionDueAt).toBeNull();
    expect(paused.safeguards[0].triggeredAt).not.toBeNull();
    // Long past when the 50% step would have handed over had it gone on (20 minutes of 500 ms is
    // 10 s: too long to wait; the due time is gone instead), the SDK still serves 50%.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    watching.stop();
    expect(seen(flag)).toBe("50");
    expect(await eventsOf(flag)).toEqual(
      expect.arrayContaining(["safeguard-triggered", "release-plan-progressions-paused"]),
    );
    const delivered = await receiver.waitFor(2, 5000);
    const types = delivered.map((request) => JSON.parse(request.body).type);
    expect(types).toEqual(
      expect.arrayContaining(["safeguard-triggered", "release-plan-progressions-paused"]),
    );
    const triggered = JSON.parse(
      delivered.find((request) => request.body.includes('"safeguard-triggered"'))!.body,
    );
    expect(triggered).toMatchObject({ featureName: flag, environment: "development" });
    expect(triggered.data.value).toBeGreaterThan(THRESHOLD);
  });

  it("switches the flag off in the environment when its safeguard's errors rise", async () => {
    const flag = "search";
    await newFlag(flag);
    await server.request(`${env(flag)}/strategies`, {
      method: "POST",
      body: { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default" } },
    });
    await switchOn(flag);
    const guard = await server.request(`${env(flag)}/safeguards`, {
      method: "PUT",
      body: safeguard("search_errors"),
    });
    expect(guard.status).toBe(200);
    expect(guard.body.action).toEqual({
      type: "disableFeatureEnvironment",
      project: "default",
      featureName: flag,
      environment: "development",
    });
    await expect.poll(() => sdk.isEnabled(flag), { timeout: 5000, interval: 10 }).toBe(true);
    errorsPerTick.search_errors = 1;
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    expect(sdk.isEnabled(flag)).toBe(true);

    errorsPerTick.search_errors = 20;
    const raised = Date.now();
    await expect.poll(() => sdk.isEnabled(flag), { timeout: 10_000, interval: 10 }).toBe(false);
    expect(Date.now() - raised).toBeLessThan(METRICS_MS + WINDOW_MS + EVALUATION_MS + 1000);
    errorsPerTick.search_errors = 0;
    expect(await eventsOf(flag)).toEqual(
      expect.arrayContaining(["feature-environment-disabled", "safeguard-triggered"]),
    );
    const { body: listed } = await server.request(`${env(flag)}/safeguards`);
    expect(listed[0].triggeredAt).not.toBeNull();
    // Switched off, it has nothing left to stop: it acts once.
    await new Promise((resolve) => setTimeout(resolve, 3 * EVALUATION_MS));
    expect((await eventsOf(flag)).filter((type) => type === "safeguard-triggered")).toHaveLength(1);
    // Switched on again by a person, the trigger is over: the safeguard watches again.
    await switchOn(flag);
    const triggeredAt = async () => (await server.request(`${env(flag)}/safeguards`)).body[0].triggeredAt;
    await expect.poll(triggeredAt, { timeout: 5000, interval: 25 }).toBeNull();
    errorsPerTick.search_errors = 20;
    await expect.poll(() => sdk.isEnabled(flag), { timeout: 10_000, interval: 10 }).toBe(false);
    errorsPerTick.search_errors = 0;
    expect((await eventsOf(flag)).filter((type) => type === "safeguard-triggered")).toHaveLength(2);
  });
});
