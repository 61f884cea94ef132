import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("environments (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const names = async () =>
    (await server.request("/api/admin/environments")).body.environments.map(
      (env: { name: string }) => env.name,
    );

  it("lists development and production on a fresh install, in sort order", async () => {
    const listed = await server.request("/api/admin/environments");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      version: 1,
      environments: [
        {
          name: "development",
          type: "development",
          enabled: true,
          sortOrder: 100,
          protected: false,
          projectCount: 1,
        },
        {
          name: "production",
          type: "production",
          enabled: true,
          sortOrder: 200,
          protected: false,
          projectCount: 1,
        },
      ],
    });
    const one = await server.request("/api/admin/environments/production");
    expect(one.body).toEqual(listed.body.environments[1]);
  });

  it("creates, updates, reorders, switches off and deletes an environment, recording each change", async () => {
    const created = await server.request("/api/admin/environments", {
      method: "POST",
      body: { name: "staging", type: "test", sortOrder: 150 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("environments/staging");
    expect(created.body).toEqual({
      name: "staging",
      type: "test",
      enabled: true,
      sortOrder: 150,
      protected: false,
      projectCount: 0,
    });
    expect(await names()).toEqual(["development", "staging", "production"]);
    expect((await latestEvent(server, "environment-created")).data.name).toBe("staging");

    const updated = await server.request("/api/admin/environments/update/staging", {
      method: "PUT",
      body: { type: "preproduction", sortOrder: 300 },
    });
    expect(updated.body).toMatchObject({ name: "staging", type: "preproduction", sortOrder: 300 });
    const event = await latestEvent(server, "environment-updated");
    expect(event).toMatchObject({
      environment: "staging",
      preData: { type: "test" },
      data: { type: "preproduction" },
    });

    const sorted = await server.request("/api/admin/environments/sort-order", {
      method: "PUT",
      body: { staging: 10, production: 20 },
    });
    expect(sorted.status).toBe(200);
    expect(await names()).toEqual(["staging", "production", "development"]);

    const off = await server.request("/api/admin/environments/staging/off", { method: "POST" });
    expect(off.status).toBe(204);
    expect((await server.request("/api/admin/environments/staging")).body.enabled).toBe(false);
    await server.request("/api/admin/environments/staging/on", { method: "POST" });
    expect((await server.request("/api/admin/environments/staging")).body.enabled).toBe(true);

    const deleted = await server.request("/api/admin/environments/staging", { method: "DELETE" });
    expect(deleted.status).toBe(200);
    const gone = await server.request("/api/admin/environments/staging");
    expect(gone.status).toBe(404);
    expect(gone.body.name).toBe("NotFoundError");
    expect(await latestEvent(server, "environment-deleted")).toMatchObject({
      environment: "staging",
      preData: { name: "staging" },
    });
  });

  it("refuses bad names, duplicates, unknown and protected environments, changing nothing", async () => {
    const before = await server.request("/api/admin/environments");

    const post = (body: unknown) => server.request("/api/admin/environments", { method: "POST", body });
    expectInvalid(await post({ name: "not url safe", type: "test" }), "name");
    expectInvalid(await post({ name: "qa" }), "type");
    const duplicate = await post({ name: "development", type: "test" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.name).toBe("NameExistsError");

    const missing = await server.request("/api/admin/environments/update/nowhere", {
      method: "PUT",
      body: { type: "test" },
    });
    expect(missing.status).toBe(404);
    expect((await server.request("/api/admin/environments/nowhere/on", { method: "POST" })).status).toBe(404);
    expect((await server.request("/api/admin/environments/nowhere", { method: "DELETE" })).status).toBe(404);
    expectInvalid(
      await server.request("/api/admin/environments/sort-order", {
        method: "PUT",
        body: { development: 1, nowhere: 2 },
      }),
      "nowhere",
    );

    await server.db
      .updateTable("environments")
      .set({ protected: true })
      .where("name", "=", "production")
      .execute();
    const refused = await server.request("/api/admin/environments/production", { method: "DELETE" });
    expect(refused.status).toBe(400);
    await server.db
      .updateTable("environments")
      .set({ protected: false })
      .where("name", "=", "production")
      .execute();

    expect((await server.request("/api/admin/environments")).body).toEqual(before.body);
  });
});
