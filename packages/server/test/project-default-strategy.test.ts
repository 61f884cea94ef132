import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { fingerprint } from "./support/fingerprint.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// A project environment's default strategy: what a flag switched on there without a
// strategy is given, set by POST …/environments/:environment/default-strategy.

describe.each(databaseKinds)("project environments' default strategy (%s)", (kind) => {
  let server: TestServer;
  let owner: Record<string, string>;
  let globalSegment: number;
  let foreignSegment: number;
  let hiddenSegment: number;

  const defaultOf = (project: string, environment: string, body: unknown, headers?: Record<string, string>) =>
    server.request(`/api/admin/projects/${project}/environments/${environment}/default-strategy`, {
      method: "POST",
      body,
      ...(headers ? { token: null, headers } : {}),
    });
  const segment = async (name: string, project?: string) => {
    const reply = await server.request("/api/admin/segments", {
      method: "POST",
      body: { name, project, constraints: [] },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as number;
  };
  const halfOfBeta = (segments: number[]) => ({
    name: "flexibleRollout",
    title: "Half of the beta",
    constraints: [{ contextName: "appName", operator: "IN", values: ["web"] }],
    parameters: { rollout: "50", stickiness: "userId", groupId: "" },
    variants: [],
    segments,
  });

  beforeAll(async () => {
    server = await startTestServer(kind);
    const editor = await createUser(server, { rootRole: "Editor" });
    owner = { cookie: await login(server, editor.username, editor.password) };
    // The Editor who creates a project owns it: every project permission there, no skipping review.
    const created = await server.request("/api/admin/projects", {
      method: "POST",
      token: null,
      headers: owner,
      body: { id: "shop", name: "Shop" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const project of [
      { id: "other", name: "Other" },
      { id: "hidden", name: "Hidden", mode: "private" },
    ]) {
      await server.request("/api/admin/projects", { method: "POST", body: project });
    }
    globalSegment = await segment("beta-testers");
    foreignSegment = await segment("other-team", "other");
    hiddenSegment = await segment("hidden-team", "hidden");
  });
  afterAll(() => server.close());

  it("sets the default strategy, records it, and shows it in the project and its health report", async () => {
    const first = await defaultOf("shop", "production", halfOfBeta([globalSegment]), owner);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual(halfOfBeta([globalSegment]));
    expect(await latestEvent(server, "default-strategy-updated")).toMatchObject({
      project: "shop",
      environment: "production",
      data: halfOfBeta([globalSegment]),
      preData: null,
    });

    const everyone = { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default" } };
    const second = await defaultOf("shop", "production", everyone, owner);
    expect(second.status).toBe(200);
    expect(await latestEvent(server, "default-strategy-updated")).toMatchObject({
      data: second.body,
      preData: halfOfBeta([globalSegment]),
    });
    expect((await defaultOf("shop", "production", halfOfBeta([globalSegment]), owner)).status).toBe(200);

    const environments = [
      { environment: "development", changeRequestsEnabled: false },
      {
        environment: "production",
        changeRequestsEnabled: false,
        defaultStrategy: halfOfBeta([globalSegment]),
      },
    ];
    expect((await server.request("/api/admin/projects/shop")).body.environments).toEqual(environments);
    const report = await server.request("/api/admin/projects/shop/health-report");
    expect(report.status).toBe(200);
    expect(report.body.environments).toEqual(environments);
  });

  it("gives a flag switched on without a strategy the environment's default, with its own group id", async () => {
    const flag = await server.request("/api/admin/projects/shop/features", {
      method: "POST",
      body: { name: "one-click-buy" },
    });
    expect(flag.status).toBe(200);
    const base = "/api/admin/projects/shop/features/one-click-buy/environments";
    for (const environment of ["production", "development"]) {
      const on = await server.request(`${base}/${environment}/on`, { method: "POST" });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
    }
    expect((await server.request(`${base}/production/strategies`)).body).toEqual([
      {
        id: expect.any(String),
        featureName: "one-click-buy",
        sortOrder: expect.any(Number),
        disabled: false,
        ...halfOfBeta([globalSegment]),
        parameters: { rollout: "50", stickiness: "userId", groupId: "one-click-buy" },
      },
    ]);
    // Without a default of its own, an environment gives everyone the flag, as before.
    expect((await server.request(`${base}/development/strategies`)).body).toMatchObject([
      {
        name: "flexibleRollout",
        parameters: { rollout: "100", stickiness: "default", groupId: "one-click-buy" },
        constraints: [],
        segments: [],
      },
    ]);
  });

  it("refuses other strategies, bad values, segments the project may not use and unknown places, changing nothing", async () => {
    const outsider = await createUser(server, { rootRole: "Viewer" });
    const viewer = { cookie: await login(server, outsider.username, outsider.password) };
    await server.request("/api/admin/environments", {
      method: "POST",
      body: { name: "staging", type: "test" },
    });
    const before = await fingerprint(server);

    const wrongStrategy = await defaultOf("shop", "development", { name: "default" }, owner);
    expect(wrongStrategy.status).toBe(400);
    expect(wrongStrategy.body.message).toMatch(/flexibleRollout/);
    expectInvalid(
      await defaultOf(
        "shop",
        "development",
        { name: "flexibleRollout", parameters: { rollout: "150" } },
        owner,
      ),
      "parameters.rollout",
    );
    const foreign = await defaultOf("shop", "development", halfOfBeta([foreignSegment]), owner);
    expect([foreign.status, foreign.body.name]).toEqual([403, "NoAccessError"]);
    expect(foreign.body.message).toMatch(/belongs to project other/);
    // A private project's segment does not exist for those outside it, as an unknown id does.
    const hidden = await defaultOf("shop", "development", halfOfBeta([hiddenSegment]), owner);
    const unknown = await defaultOf("shop", "development", halfOfBeta([99_999]), owner);
    expect(hidden.status).toBeGreaterThanOrEqual(400);
    expect({ status: hidden.status, name: hidden.body.name }).toEqual({
      status: unknown.status,
      name: unknown.body.name,
    });
    expect(hidden.body.message).not.toMatch(/hidden/);

    const forbidden = await defaultOf("shop", "development", halfOfBeta([]), viewer);
    expect(forbidden).toMatchObject({ status: 403, body: { name: "NoAccessError" } });
    // An environment the project does not use, and a project that does not exist.
    expect((await defaultOf("shop", "staging", halfOfBeta([]), owner)).status).toBe(404);
    expect((await defaultOf("nowhere", "development", halfOfBeta([]))).status).toBe(404);

    expect(await fingerprint(server)).toEqual(before);
  });

  it("refuses to change the default of an environment that requires change requests, unreviewed", async () => {
    const config = await server.request(
      "/api/admin/projects/shop/environments/production/change-requests/config",
      {
        method: "PUT",
        body: { changeRequestsEnabled: true, requiredApprovals: 1 },
      },
    );
    expect(config.status, JSON.stringify(config.body)).toBeLessThan(300);
    const before = await fingerprint(server);
    const refused = await defaultOf("shop", "production", halfOfBeta([]), owner);
    expect(refused).toMatchObject({ status: 403, body: { name: "NoAccessError" } });
    expect(refused.body.message).toMatch(/requires change requests/);
    expect(await fingerprint(server)).toEqual(before);
    expect((await defaultOf("shop", "development", halfOfBeta([]), owner)).status).toBe(200);
  });
});
