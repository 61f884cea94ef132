import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent, removeStrategy, seedFlag } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

const beta = { contextName: "plan", operator: "IN", values: ["beta"] };

describe.each(databaseKinds)("segments (%s)", (kind) => {
  let server: TestServer;
  let id: number;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const list = async () => (await server.request("/api/admin/segments")).body.segments;
  const post = (body: unknown) => server.request("/api/admin/segments", { method: "POST", body });

  it("holds no segments on a fresh install", async () => {
    expect((await server.request("/api/admin/segments")).body).toEqual({ segments: [] });
  });

  it("creates a segment and shows it in the listing", async () => {
    const created = await post({ name: "beta-users", description: "Testers", constraints: [beta] });
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.headers.get("location")).toBe(`segments/${id}`);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: "beta-users",
      description: "Testers",
      project: null,
      constraints: [beta],
      createdAt: expect.any(String),
      createdBy: "init-admin",
      usedInFeatures: 0,
      usedInProjects: 0,
    });
    expect(await list()).toEqual([created.body]);
    expect((await server.request(`/api/admin/segments/${id}`)).body).toEqual(created.body);
    expect((await latestEvent(server, "segment-created")).data).toEqual(created.body);
  });

  it("refuses bad constraints, unknown projects and taken names, storing nothing", async () => {
    const before = await list();
    expectInvalid(await post({ name: "x" }), "constraints");
    expectInvalid(
      await post({ name: "x", constraints: [{ ...beta, operator: "LIKE" }] }),
      "constraints.0.operator",
    );
    expectInvalid(
      await post({ name: "x", constraints: [{ operator: "IN", values: [] }] }),
      "constraints.0.contextName",
    );
    expectInvalid(
      await post({ name: "x", constraints: [{ contextName: "age", operator: "NUM_GTE", value: "adult" }] }),
      "constraints.0",
    );
    expectInvalid(
      await post({ name: "x", constraints: [{ ...beta, values: [{ plan: "beta" }] }] }),
      "constraints.0.values.0",
    );
    expectInvalid(
      await post({ name: "x", constraints: [{ ...beta, value: ["beta", "alpha"] }] }),
      "constraints.0.value",
    );
    expectInvalid(await post({ name: "x", project: "nowhere", constraints: [] }), "project");
    const taken = await post({ name: "beta-users", constraints: [] });
    expect(taken.status).toBe(409);
    expect(await list()).toEqual(before);
    expect((await server.request("/api/admin/segments/999")).status).toBe(404);
  });

  it("accepts the CIDR and regex operators SDKs evaluate", async () => {
    const created = await post({
      name: "office",
      constraints: [
        { contextName: "remoteAddress", operator: "IN_CIDR", values: ["10.0.0.0/8"] },
        { contextName: "userId", operator: "REGEX", value: "^staff-", caseInsensitive: true },
      ],
    });
    expect(created.status).toBe(201);
    const removed = await server.request(`/api/admin/segments/${created.body.id}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect(await latestEvent(server, "segment-deleted")).toMatchObject({ preData: { name: "office" } });
  });

  it("updates a segment, keeping a description left out and recording what it was", async () => {
    const updated = await server.request(`/api/admin/segments/${id}`, {
      method: "PUT",
      body: {
        name: "beta-testers",
        project: "default",
        constraints: [{ ...beta, values: ["beta", "alpha"] }],
      },
    });
    expect(updated.status).toBe(204);
    expect((await server.request(`/api/admin/segments/${id}`)).body).toMatchObject({
      name: "beta-testers",
      description: "Testers",
      project: "default",
      constraints: [{ values: ["beta", "alpha"] }],
    });
    expect(await latestEvent(server, "segment-updated")).toMatchObject({
      project: "default",
      preData: { name: "beta-users", project: null },
      data: { name: "beta-testers" },
    });
    const missing = await server.request("/api/admin/segments/999", {
      method: "PUT",
      body: { name: "x", constraints: [] },
    });
    expect(missing.status).toBe(404);
  });

  it("refuses to delete a segment a strategy uses, and lists those strategies", async () => {
    await server.request("/api/admin/projects", { method: "POST", body: { id: "shop", name: "Shop" } });
    await seedFlag(server, {
      name: "new-cart",
      project: "shop",
      environments: ["development"],
      strategies: [{ id: "cart-rule", environment: "development", segments: [id] }],
    });
    expect((await server.request(`/api/admin/segments/strategies/${id}`)).body).toEqual({
      strategies: [
        {
          id: "cart-rule",
          featureName: "new-cart",
          projectId: "shop",
          environment: "development",
          strategyName: "default",
        },
      ],
    });
    expect((await list())[0]).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });

    // Bound to project default, the segment could no longer serve the shop flag.
    const rebound = await server.request(`/api/admin/segments/${id}`, {
      method: "PUT",
      body: { name: "beta-testers", project: "default", constraints: [beta] },
    });
    expectInvalid(rebound, "project");

    const refused = await server.request(`/api/admin/segments/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("new-cart");
    expect((await server.request(`/api/admin/segments/${id}`)).status).toBe(200);

    await removeStrategy(server, "cart-rule");
    expect((await server.request(`/api/admin/segments/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.request(`/api/admin/segments/${id}`)).status).toBe(404);
  });

  it("lets a flag's strategy name only global segments and its own project's", async () => {
    // Another project's segment is refused as the reference refuses it, but with the spec's 403.
    const global = (await post({ name: "kept", constraints: [] })).body.id;
    await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "elsewhere", name: "Elsewhere" },
    });
    const foreign = (await post({ name: "theirs", project: "elsewhere", constraints: [] })).body.id;
    await seedFlag(server, { name: "segment-user", environments: ["development"] });
    const add = (segments: number[]) =>
      server.request(
        "/api/admin/projects/default/features/segment-user/environments/development/strategies",
        {
          method: "POST",
          body: { name: "default", segments },
        },
      );
    expect((await add([global])).status).toBe(200);
    const unknown = await add([global, 9999]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: "segments", message: "Segment 9999 does not exist" }]);
    const theirs = await add([foreign]);
    expect([theirs.status, theirs.body.name]).toEqual([403, "NoAccessError"]);
    expect(theirs.body.message).toContain("belongs to project elsewhere");
  });
});
