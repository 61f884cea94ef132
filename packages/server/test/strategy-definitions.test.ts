import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("strategy definitions (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const strategy = async (name: string) => (await server.request(`/api/admin/strategies/${name}`)).body;

  it("holds the built-in strategies on a fresh install", async () => {
    const listed = await server.request("/api/admin/strategies");
    expect(listed.body.version).toBe(1);
    expect(listed.body.strategies.map((s: { name: string }) => s.name)).toEqual([
      "flexibleRollout",
      "default",
      "userWithId",
      "remoteAddress",
      "applicationHostname",
    ]);
    expect(await strategy("flexibleRollout")).toEqual({
      name: "flexibleRollout",
      displayName: "Gradual rollout",
      description: expect.any(String),
      editable: false,
      deprecated: false,
      parameters: [
        { name: "rollout", type: "percentage", description: "", required: false },
        { name: "stickiness", type: "string", description: expect.any(String), required: true },
        { name: "groupId", type: "string", description: expect.any(String), required: true },
      ],
    });
    expect((await server.request("/api/admin/strategies/nowhere")).status).toBe(404);
  });

  it("creates, updates, deprecates and reactivates a custom strategy", async () => {
    const created = await server.request("/api/admin/strategies", {
      method: "POST",
      body: {
        name: "byTenant",
        description: "On for tenants",
        parameters: [{ name: "tenants", type: "list" }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: "byTenant",
      displayName: null,
      description: "On for tenants",
      editable: true,
      deprecated: false,
      parameters: [{ name: "tenants", type: "list", description: "", required: false }],
    });
    expect((await latestEvent(server, "strategy-created")).data.name).toBe("byTenant");

    const updated = await server.request("/api/admin/strategies/byTenant", {
      method: "PUT",
      body: {
        name: "byTenant",
        displayName: "Tenants",
        parameters: [{ name: "tenants", type: "list", required: true, description: "Tenant ids" }],
      },
    });
    expect(updated.status).toBe(200);
    expect(await strategy("byTenant")).toMatchObject({
      displayName: "Tenants",
      parameters: [{ required: true }],
    });
    expect(await latestEvent(server, "strategy-updated")).toMatchObject({
      preData: { displayName: null },
      data: { displayName: "Tenants" },
    });

    expect(
      (await server.request("/api/admin/strategies/byTenant/deprecate", { method: "POST" })).status,
    ).toBe(200);
    expect((await strategy("byTenant")).deprecated).toBe(true);
    expect((await latestEvent(server, "strategy-deprecated")).data).toEqual({ name: "byTenant" });
    expect(
      (await server.request("/api/admin/strategies/byTenant/reactivate", { method: "POST" })).status,
    ).toBe(200);
    expect((await strategy("byTenant")).deprecated).toBe(false);
    expect((await latestEvent(server, "strategy-reactivated")).data).toEqual({ name: "byTenant" });
  });

  it("refuses to edit built-ins, bad parameters and taken names, changing nothing", async () => {
    const before = (await server.request("/api/admin/strategies")).body;
    const post = (body: unknown) => server.request("/api/admin/strategies", { method: "POST", body });
    expectInvalid(await post({ name: "x", parameters: [{ name: "a", type: "date" }] }), "parameters.0.type");
    expectInvalid(
      await post({
        name: "x",
        parameters: [
          { name: "a", type: "list" },
          { name: "a", type: "string" },
        ],
      }),
      "parameters",
    );
    expectInvalid(await post({ name: "not url safe" }), "name");
    expect((await post({ name: "default" })).status).toBe(409);

    const builtIn = await server.request("/api/admin/strategies/default", {
      method: "PUT",
      body: { parameters: [] },
    });
    expect(builtIn.status).toBe(400);
    expect((await server.request("/api/admin/strategies/nowhere", { method: "PUT", body: {} })).status).toBe(
      404,
    );
    expect((await server.request("/api/admin/strategies/default/deprecate", { method: "POST" })).status).toBe(
      400,
    );
    expect((await server.request("/api/admin/strategies/nowhere/deprecate", { method: "POST" })).status).toBe(
      404,
    );
    expect((await server.request("/api/admin/strategies")).body).toEqual(before);
  });

  it("deletes a custom strategy no flag uses, refusing built-ins and strategies in use", async () => {
    const create = await server.request("/api/admin/strategies", {
      method: "POST",
      body: { name: "byRegion", parameters: [{ name: "regions", type: "list" }] },
    });
    expect(create.status).toBe(201);
    expect(
      (
        await server.request("/api/admin/projects/default/features", {
          method: "POST",
          body: { name: "regional" },
        })
      ).status,
    ).toBe(200);
    const use = await server.request(
      "/api/admin/projects/default/features/regional/environments/development/strategies",
      { method: "POST", body: { name: "byRegion", parameters: { regions: "eu" } } },
    );
    expect(use.status, JSON.stringify(use.body)).toBe(200);

    const refused = await server.request("/api/admin/strategies/byRegion", { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("regional");
    expect((await server.request("/api/admin/strategies/default", { method: "DELETE" })).status).toBe(400);
    expect((await server.request("/api/admin/strategies/nowhere", { method: "DELETE" })).status).toBe(404);

    const strategyId = use.body.id as string;
    expect(
      (
        await server.request(
          `/api/admin/projects/default/features/regional/environments/development/strategies/${strategyId}`,
          { method: "DELETE" },
        )
      ).status,
    ).toBe(200);
    expect((await server.request("/api/admin/strategies/byRegion", { method: "DELETE" })).status).toBe(200);
    expect((await server.request("/api/admin/strategies/byRegion")).status).toBe(404);
    expect((await latestEvent(server, "strategy-deleted")).preData).toMatchObject({ name: "byRegion" });
  });
});
