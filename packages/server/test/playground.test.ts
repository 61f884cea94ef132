import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectInvalid } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// The playground: what every flag answers for a context, and why, as the admin UI shows it.

let server: TestServer;
let outsider: string;

const ok = async (path: string, body?: unknown) => {
  const reply = await server.request(path, { method: "POST", body });
  expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
};
const flagPath = (name: string, project = "default") => `/api/admin/projects/${project}/features/${name}`;
const addStrategy = (flag: string, body: unknown, environment = "development", project = "default") =>
  ok(`${flagPath(flag, project)}/environments/${environment}/strategies`, body);
const switchOn = (flag: string, environment = "development", project = "default") =>
  ok(`${flagPath(flag, project)}/environments/${environment}/on`);

const country = { contextName: "country", operator: "IN", values: ["no", "se"] };
const colours = [
  {
    name: "red",
    weight: 1000,
    weightType: "variable",
    stickiness: "default",
    payload: { type: "string", value: "#f00" },
  },
];

beforeAll(async () => {
  server = await startTestServer();
  const segment = await ok("/api/admin/segments", {
    name: "paying",
    constraints: [{ contextName: "plan", operator: "IN", values: ["pro", "team"] }],
  });
  await ok("/api/admin/strategies", { name: "tenant", parameters: [] });
  await ok("/api/admin/projects", { id: "hidden", name: "Hidden", mode: "private" });
  for (const name of ["checkout", "paused", "paint", "parent", "child", "custom", "launch"]) {
    await ok("/api/admin/projects/default/features", { name });
  }
  await ok("/api/admin/projects/hidden/features", { name: "secret" });

  await addStrategy("checkout", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "checkout" },
    constraints: [country],
    segments: [segment.id],
  });
  await switchOn("checkout");
  // Never switched on: its strategy would let everyone in.
  await addStrategy("paused", { name: "default" });
  await addStrategy("paint", { name: "default", variants: colours });
  await switchOn("paint");
  await addStrategy("parent", { name: "default" });
  await addStrategy("child", { name: "default" });
  await ok(`${flagPath("child")}/dependencies`, { feature: "parent", enabled: true });
  await switchOn("child");
  await addStrategy("custom", { name: "default", disabled: true });
  await addStrategy("custom", { name: "tenant", parameters: {} });
  await switchOn("custom");
  await addStrategy("launch", {
    name: "default",
    constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "2020-01-01T00:00:00.000Z" }],
  });
  await switchOn("launch");
  await addStrategy("secret", { name: "default" }, "development", "hidden");
  await switchOn("secret", "development", "hidden");

  const person = await createUser(server, { rootRole: "Editor" });
  outsider = await login(server, person.username, person.password);
});
afterAll(() => server?.close());

const play = (body: unknown, headers?: Record<string, string>) =>
  server.request("/api/admin/playground", {
    method: "POST",
    body,
    ...(headers ? { token: null, headers } : {}),
  });

/** Every flag's answer for a context, as sent (bodies are untyped: see TestServer.request). */
const answers = async (context: Record<string, unknown>, environment = "development") => {
  const reply = await play({ projects: "*", environment, context: { appName: "shop", ...context } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.features;
};
const answerOf = async (name: string, context: Record<string, unknown> = {}) =>
  (await answers(context)).find((feature: { name: string }) => feature.name === name);

describe("the playground", () => {
  it("echoes the request and answers for every flag the caller may see", async () => {
    const body = { projects: "*", environment: "development", context: { appName: "shop", userId: "7" } };
    const reply = await play(body);
    expect(reply.status).toBe(200);
    expect(reply.body.input).toEqual(body);
    expect(reply.body.features.map((feature: { name: string }) => feature.name).sort()).toEqual([
      "checkout",
      "child",
      "custom",
      "launch",
      "paint",
      "parent",
      "paused",
      "secret",
    ]);
  });

  it("explains a flag switched off in the environment: its strategy matches, the flag stays off", async () => {
    const paused = await answerOf("paused");
    expect(paused).toMatchObject({
      projectId: "default",
      isEnabled: false,
      isEnabledInCurrentEnvironment: false,
      hasUnsatisfiedDependency: false,
      variant: { name: "disabled", enabled: false, feature_enabled: false },
      variants: [],
      strategies: {
        result: true,
        data: [{ name: "default", result: { enabled: true, evaluationStatus: "complete" } }],
      },
    });
  });

  it("names the constraint that failed, with the value it compared", async () => {
    const checkout = await answerOf("checkout", { properties: { country: "dk", plan: "pro" } });
    expect(checkout.isEnabled).toBe(false);
    expect(checkout.strategies.result).toBe(false);
    const [strategy] = checkout.strategies.data;
    expect(strategy).toMatchObject({
      name: "flexibleRollout",
      id: expect.any(String),
      disabled: false,
      parameters: { rollout: "100", stickiness: "default", groupId: "checkout" },
      result: { enabled: false, evaluationStatus: "complete" },
      links: {
        edit: `/projects/default/features/checkout/strategies/edit?environmentId=development&strategyId=${strategy.id}`,
      },
    });
    expect(strategy.constraints).toEqual([
      { ...country, inverted: false, caseInsensitive: false, result: false, contextValue: "dk" },
    ]);
  });

  it("shows a segment with its own constraints and the values they compared", async () => {
    const free = await answerOf("checkout", { properties: { country: "no", plan: "free" } });
    expect(free.isEnabled).toBe(false);
    expect(free.strategies.data[0].constraints[0]).toMatchObject({ result: true, contextValue: "no" });
    expect(free.strategies.data[0].segments).toEqual([
      {
        id: expect.any(Number),
        name: "paying",
        result: false,
        constraints: [
          {
            contextName: "plan",
            operator: "IN",
            values: ["pro", "team"],
            inverted: false,
            caseInsensitive: false,
            result: false,
            contextValue: "free",
          },
        ],
      },
    ]);
    const paying = await answerOf("checkout", { properties: { country: "no", plan: "pro" } });
    expect(paying).toMatchObject({ isEnabled: true, strategies: { result: true } });
  });

  it("gives the variant a strategy chose, with its payload and the strategy's variants", async () => {
    const paint = await answerOf("paint", { userId: "42" });
    expect(paint).toMatchObject({
      isEnabled: true,
      variant: {
        name: "red",
        enabled: true,
        payload: { type: "string", value: "#f00" },
        feature_enabled: true,
      },
      variants: colours,
    });
    expect(paint.strategies.data[0].result).toEqual({
      enabled: true,
      evaluationStatus: "complete",
      variant: { name: "red", enabled: true, payload: { type: "string", value: "#f00" } },
      variants: colours,
    });
  });

  it("keeps off a flag whose parent is off, saying so", async () => {
    const child = await answerOf("child");
    expect(child).toMatchObject({
      isEnabled: false,
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: true,
      strategies: { result: true },
    });
    await switchOn("parent");
    expect(await answerOf("child")).toMatchObject({
      isEnabled: true,
      hasUnsatisfiedDependency: false,
    });
  });

  it("cannot decide a custom strategy and does not evaluate a disabled one, as the reference", async () => {
    const custom = await answerOf("custom");
    expect(custom.isEnabled).toBe(false);
    expect(custom.strategies.result).toBe("unknown");
    expect(
      custom.strategies.data.map((strategy: { disabled: boolean; result: unknown }) => strategy.result),
    ).toEqual([
      { enabled: "unknown", evaluationStatus: "unevaluated" },
      { enabled: "unknown", evaluationStatus: "incomplete" },
    ]);
    expect(custom.strategies.data[0].disabled).toBe(true);
  });

  it("compares dates with the time of the request when the context gives none", async () => {
    const before = Date.now();
    const launch = await answerOf("launch");
    const compared = launch.strategies.data[0].constraints[0].contextValue;
    expect(launch.isEnabled).toBe(true);
    expect(Date.parse(compared)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(compared)).toBeLessThanOrEqual(Date.now());
    const early = await answerOf("launch", { currentTime: "2019-06-01T00:00:00.000Z" });
    expect(early.isEnabled).toBe(false);
    expect(early.strategies.data[0].constraints[0]).toMatchObject({
      result: false,
      contextValue: "2019-06-01T00:00:00.000Z",
    });
  });

  it("hides the flags of a private project from those outside it", async () => {
    const reply = await play(
      { environment: "development", context: { appName: "shop" } },
      { cookie: outsider },
    );
    expect(reply.status).toBe(200);
    const names = reply.body.features.map((feature: { name: string }) => feature.name);
    expect(names).toContain("checkout");
    expect(names).not.toContain("secret");
    const asked = await play(
      { projects: ["hidden"], environment: "development", context: { appName: "shop" } },
      { cookie: outsider },
    );
    expect(asked.body.features).toEqual([]);
  });

  it("evaluates only the projects asked for", async () => {
    const reply = await play({
      projects: ["hidden"],
      environment: "development",
      context: { appName: "shop" },
    });
    expect(reply.body.features.map((feature: { name: string }) => feature.name)).toEqual(["secret"]);
    expect(reply.body.features[0]).toMatchObject({ projectId: "hidden", isEnabled: true });
  });

  it("answers for an unknown environment with every flag off, as the reference", async () => {
    const flags = await answers({}, "nowhere");
    expect(flags).toHaveLength(8);
    for (const flag of flags) {
      expect(flag).toMatchObject({
        isEnabled: false,
        isEnabledInCurrentEnvironment: false,
        strategies: { result: false, data: [] },
      });
    }
  });

  it("refuses a request it cannot evaluate, naming the field", async () => {
    expectInvalid(await play({ environment: "development", context: {} }), "context.appName");
    expectInvalid(await play({ context: { appName: "shop" } }), "environment");
    expectInvalid(
      await play({ environment: "development", context: { appName: "shop", currentTime: "soon" } }),
      "context.currentTime",
    );
    expectInvalid(
      await play({ projects: "all", environment: "development", context: { appName: "shop" } }),
      "projects",
    );
  });

  it("is refused to SDK tokens", async () => {
    const reply = await server.request("/api/admin/playground", {
      method: "POST",
      token: CLIENT_TOKEN,
      body: { environment: "development", context: { appName: "shop" } },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.name).toBe("NoAccessError");
  });
});

describe("the advanced playground", () => {
  const advanced = (body: unknown) =>
    server.request("/api/admin/playground/advanced", { method: "POST", body });

  it("evaluates every combination of the listed values in every environment", async () => {
    const body = {
      environments: ["development", "production"],
      projects: ["default"],
      context: { appName: "shop", userId: "1,2", weird: 5, properties: { country: "no,dk", plan: "pro" } },
    };
    const reply = await advanced(body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.input).toEqual(body);
    expect(reply.body.warnings).toEqual({ invalidContextProperties: ["weird"] });
    const checkout = reply.body.features.find((feature: { name: string }) => feature.name === "checkout");
    expect(checkout.projectId).toBe("default");
    expect(Object.keys(checkout.environments)).toEqual(["development", "production"]);
    const development = checkout.environments.development;
    expect(development.map((item: { context: unknown }) => item.context)).toEqual([
      { userId: "1", country: "no", plan: "pro", appName: "shop" },
      { userId: "1", country: "dk", plan: "pro", appName: "shop" },
      { userId: "2", country: "no", plan: "pro", appName: "shop" },
      { userId: "2", country: "dk", plan: "pro", appName: "shop" },
    ]);
    expect(development.map((item: { isEnabled: boolean }) => item.isEnabled)).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(development[1]).toMatchObject({
      name: "checkout",
      environment: "development",
      projectId: "default",
    });
    expect(development[1].strategies.data[0].constraints[0]).toMatchObject({
      result: false,
      contextValue: "dk",
    });
    // Never switched on in production, nor given a strategy there.
    for (const item of checkout.environments.production) {
      expect(item).toMatchObject({
        environment: "production",
        isEnabled: false,
        isEnabledInCurrentEnvironment: false,
      });
    }
  });

  it("refuses more evaluations than its limit, and malformed environments", async () => {
    const many = Array.from({ length: 200 }, (_, i) => i).join(",");
    const reply = await advanced({
      environments: ["development", "production"],
      context: { appName: "shop", userId: many, sessionId: many },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ name: "ValidationError", id: expect.any(String) });
    expect(reply.body.message).toContain("would generate 640000 combinations exceeding 15000 limit");
    const nothing = await advanced({
      environments: ["development"],
      projects: ["nowhere"],
      context: { appName: "shop", userId: many, sessionId: many },
    });
    expect(nothing.status).toBe(200);
    expect(nothing.body.features).toEqual([]);
    expectInvalid(await advanced({ environments: [], context: { appName: "shop" } }), "environments");
    expectInvalid(
      await advanced({ environments: ["dev elopment"], context: { appName: "shop" } }),
      "environments.0",
    );
  });
});
