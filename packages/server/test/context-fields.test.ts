import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent, removeStrategy, seedFlag } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("context fields (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const list = async () => (await server.request("/api/admin/context")).body;
  const field = async (name: string) => (await server.request(`/api/admin/context/${name}`)).body;

  it("holds the standard fields on a fresh install, in sort order", async () => {
    const fields = await list();
    expect(fields.map((f: { name: string }) => f.name)).toEqual([
      "environment",
      "userId",
      "appName",
      "currentTime",
      "sessionId",
      "remoteAddress",
    ]);
    expect(fields[4]).toEqual({
      name: "sessionId",
      description: "Allows you to constrain on sessionId",
      stickiness: true,
      sortOrder: 4,
      legalValues: [],
      createdAt: expect.any(String),
      usedInFeatures: 0,
      usedInProjects: 0,
    });
  });

  it("creates a field with legal values and answers whether a name is free", async () => {
    const created = await server.request("/api/admin/context", {
      method: "POST",
      body: {
        name: "tier",
        description: "Plan",
        legalValues: [{ value: "free" }, { value: "pro", description: "Paid" }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("context/tier");
    expect(created.body).toMatchObject({
      name: "tier",
      stickiness: false,
      sortOrder: 10,
      legalValues: [{ value: "free" }, { value: "pro", description: "Paid" }],
    });
    expect(await field("tier")).toEqual(created.body);
    expect((await latestEvent(server, "context-field-created")).data.name).toBe("tier");

    const validate = (name: string) =>
      server.request("/api/admin/context/validate", { method: "POST", body: { name } });
    expect((await validate("region")).status).toBe(200);
    expect((await validate("tier")).status).toBe(409);
  });

  it("refuses repeated legal values, bad and taken names, storing nothing", async () => {
    const before = await list();
    const post = (body: unknown) => server.request("/api/admin/context", { method: "POST", body });
    expectInvalid(
      await post({ name: "region", legalValues: [{ value: "eu" }, { value: "eu" }] }),
      "legalValues",
    );
    expectInvalid(await post({ name: "has space" }), "name");
    expectInvalid(
      await post({ name: "region", legalValues: [{ description: "no value" }] }),
      "legalValues.0.value",
    );
    expect((await post({ name: "userId" })).status).toBe(409);
    expectInvalid(
      await server.request("/api/admin/context/tier", {
        method: "PUT",
        body: { legalValues: [{ value: "a" }, { value: "a" }] },
      }),
      "legalValues",
    );
    expect(await list()).toEqual(before);
    expect((await server.request("/api/admin/context/nowhere")).status).toBe(404);
  });

  it("updates a field, keeping what the update leaves out", async () => {
    const updated = await server.request("/api/admin/context/tier", {
      method: "PUT",
      body: { name: "tier", description: "Subscription plan", stickiness: true },
    });
    expect(updated.status).toBe(200);
    expect(await field("tier")).toMatchObject({
      description: "Subscription plan",
      stickiness: true,
      legalValues: [{ value: "free" }, { value: "pro" }],
    });
    expect(await latestEvent(server, "context-field-updated")).toMatchObject({
      preData: { description: "Plan", stickiness: false },
      data: { description: "Subscription plan", stickiness: true },
    });
    const missing = await server.request("/api/admin/context/nowhere", {
      method: "PUT",
      body: { description: "x" },
    });
    expect(missing.status).toBe(404);
  });

  it("adds, replaces and removes one legal value", async () => {
    const values = async () => (await field("tier")).legalValues;
    const upsert = (method: string, body: unknown) =>
      server.request("/api/admin/context/tier/legal-values", { method, body });

    expect((await upsert("POST", { value: "team" })).status).toBe(200);
    expect((await upsert("PUT", { value: "pro", description: "Paid monthly" })).status).toBe(200);
    expect(await values()).toEqual([
      { value: "free" },
      { value: "team" },
      { value: "pro", description: "Paid monthly" },
    ]);

    const removed = await server.request("/api/admin/context/tier/legal-values/team", { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await values()).toEqual([{ value: "free" }, { value: "pro", description: "Paid monthly" }]);
    expect((await latestEvent(server, "context-field-updated")).preData.legalValues).toHaveLength(3);
    expect(
      (await server.request("/api/admin/context/tier/legal-values/team", { method: "DELETE" })).status,
    ).toBe(404);
  });

  it("refuses to delete a field a strategy constraint uses", async () => {
    await seedFlag(server, {
      name: "paid-export",
      environments: ["production"],
      strategies: [
        {
          id: "export-rule",
          environment: "production",
          constraints: [{ contextName: "tier", operator: "IN", values: ["pro"] }],
        },
      ],
    });
    expect(await field("tier")).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });
    expect(await field("userId")).toMatchObject({ usedInFeatures: 0 });

    const refused = await server.request("/api/admin/context/tier", { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("paid-export");
    expect((await server.request("/api/admin/context/tier")).status).toBe(200);

    await removeStrategy(server, "export-rule");
    expect((await server.request("/api/admin/context/tier", { method: "DELETE" })).status).toBe(200);
    expect((await server.request("/api/admin/context/tier")).status).toBe(404);
    expect((await latestEvent(server, "context-field-deleted")).preData.name).toBe("tier");
  });
});
