import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent, seedFlag } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("projects (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const project = (id: string) => server.request(`/api/admin/projects/${id}`);
  const create = (body: unknown) => server.request("/api/admin/projects", { method: "POST", body });
  const listedIds = async (query = "") =>
    (await server.request(`/api/admin/projects${query}`)).body.projects.map((p: { id: string }) => p.id);

  it("holds the default project on a fresh install, with every listing field", async () => {
    const listed = await server.request("/api/admin/projects");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      version: 1,
      projects: [
        {
          id: "default",
          name: "Default",
          description: "Default project",
          health: 100,
          featureCount: 0,
          staleFeatureCount: 0,
          potentiallyStaleFeatureCount: 0,
          memberCount: 0,
          createdAt: expect.any(String),
          updatedAt: null,
          lastUpdatedAt: null,
          archivedAt: null,
          favorite: false,
          mode: "open",
          defaultStickiness: "default",
          avgTimeToProduction: 0,
          lastReportedFlagUsage: null,
          owners: [{ ownerType: "system" }],
        },
      ],
    });
    const one = await project("default");
    expect(one.body).toMatchObject({
      ...listed.body.projects[0],
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
      environments: [{ environment: "development" }, { environment: "production" }],
    });
    const missing = await project("nowhere");
    expect(missing.status).toBe(404);
    expect(missing.body.name).toBe("NotFoundError");
  });

  it("creates a project in the environments named, or in every enabled one", async () => {
    const created = await create({ id: "checkout", name: "Checkout", environments: ["production"] });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("projects/checkout");
    expect(created.body).toMatchObject({
      id: "checkout",
      name: "Checkout",
      description: null,
      mode: "open",
      environments: [{ environment: "production" }],
    });
    expect(await latestEvent(server, "project-created")).toMatchObject({
      project: "checkout",
      data: { id: "checkout" },
    });

    await server.request("/api/admin/environments/development/off", { method: "POST" });
    const everywhere = await create({ id: "search", name: "Search", mode: "protected" });
    await server.request("/api/admin/environments/development/on", { method: "POST" });
    expect(everywhere.body).toMatchObject({
      mode: "protected",
      environments: [{ environment: "production" }],
    });
    expect(await listedIds()).toEqual(["checkout", "default", "search"]);
  });

  it("refuses bad ids, duplicates, unknown environments and modes, creating nothing", async () => {
    const before = await listedIds();
    expectInvalid(await create({ id: "no spaces", name: "x" }), "id");
    expectInvalid(await create({ id: "x" }), "name");
    expectInvalid(await create({ id: "x", name: "x", mode: "secret" }), "mode");
    expectInvalid(await create({ id: "x", name: "x", environments: ["nowhere"] }), "environments");
    const duplicate = await create({ id: "default", name: "Again" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.name).toBe("NameExistsError");
    expect(await listedIds()).toEqual(before);
    expect(
      await server.db.selectFrom("project_environments").where("project_id", "=", "x").execute(),
    ).toEqual([]);
  });

  it("updates a project and records what it was before", async () => {
    const updated = await server.request("/api/admin/projects/checkout", {
      method: "PUT",
      body: { name: "Checkout team", description: "Payments", featureLimit: 5 },
    });
    expect(updated.status).toBe(200);
    expect((await project("checkout")).body).toMatchObject({
      name: "Checkout team",
      description: "Payments",
      featureLimit: 5,
      mode: "open",
      updatedAt: expect.any(String),
    });
    expect(await latestEvent(server, "project-updated")).toMatchObject({
      project: "checkout",
      preData: { name: "Checkout", featureLimit: null },
      data: { name: "Checkout team", featureLimit: 5 },
    });
    const missing = await server.request("/api/admin/projects/nowhere", {
      method: "PUT",
      body: { name: "x" },
    });
    expect(missing.status).toBe(404);
  });

  it("checks a flag name against a hostile naming pattern at once", async () => {
    await server.request("/api/admin/projects", { method: "POST", body: { id: "hostile", name: "Hostile" } });
    const saved = await server.request("/api/admin/projects/hostile/settings", {
      method: "PUT",
      body: { featureNaming: { pattern: "(a+)+b" } },
    });
    expect(saved.status).toBe(200);
    // 60 characters: a backtracking engine would take longer than any test runs.
    const refused = await server.request("/api/admin/projects/hostile/features", {
      method: "POST",
      body: { name: "a".repeat(60) },
    });
    expectInvalid(refused, "name");
    const created = await server.request("/api/admin/projects/hostile/features", {
      method: "POST",
      body: { name: `${"a".repeat(59)}b` },
    });
    expect(created.status).toBe(200);
    await server.request(`/api/admin/projects/hostile/features/${"a".repeat(59)}b`, { method: "DELETE" });
    expect((await server.request("/api/admin/projects/hostile", { method: "DELETE" })).status).toBeLessThan(
      300,
    );
  });

  it("sets the naming pattern and mode (endpoint 12), leaving out what is not sent", async () => {
    const settings = (body: unknown, id = "checkout") =>
      server.request(`/api/admin/projects/${id}/settings`, { method: "PUT", body });
    const naming = { pattern: "checkout-[a-z]+", example: "checkout-cart", description: "checkout-<area>" };
    const saved = await settings({ featureNaming: naming });
    expect(saved.status).toBe(200);
    expect(saved.body).toBeUndefined();
    expect(await settings({ mode: "private" })).toMatchObject({ status: 200 });
    expect((await project("checkout")).body).toMatchObject({ mode: "private", featureNaming: naming });
    expect(await server.services.projects.requireActive(server.db, "checkout")).toEqual({
      id: "checkout",
      featureNaming: naming,
      featureLimit: 5,
      defaultStickiness: "default",
    });

    const before = (await project("checkout")).body;
    expectInvalid(await settings({ featureNaming: { pattern: "checkout-[" } }), "featureNaming.pattern");
    // Patterns are RE2: look-around is not, and would need a backtracking engine.
    expectInvalid(
      await settings({ featureNaming: { pattern: "checkout-(?!old)" } }),
      "featureNaming.pattern",
    );
    // The whole name must match, so an example that merely contains a match is refused.
    expectInvalid(
      await settings({ featureNaming: { ...naming, example: "my-checkout-cart" } }),
      "featureNaming.example",
    );
    expectInvalid(
      await settings({ featureNaming: { pattern: null, example: "x" } }),
      "featureNaming.example",
    );
    expectInvalid(await settings({ mode: "secret" }), "mode");
    const text = await server.request("/api/admin/projects/checkout/settings", {
      method: "PUT",
      body: "mode=open",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect((await settings({ mode: "open" }, "nowhere")).status).toBe(404);
    expect((await project("checkout")).body).toEqual(before);
  });

  it("counts the flags of a project and when they were last used", async () => {
    const seen = new Date("2030-01-02T03:04:05.000Z");
    await seedFlag(server, {
      name: "search-fresh",
      project: "search",
      environments: ["production"],
      lastSeenAt: seen,
    });
    await seedFlag(server, { name: "search-stale", project: "search", stale: true });
    await seedFlag(server, { name: "search-old", project: "search", archived: true });
    const search = (await server.request("/api/admin/projects")).body.projects.find(
      (p: { id: string }) => p.id === "search",
    );
    expect(search).toMatchObject({
      featureCount: 2,
      staleFeatureCount: 1,
      health: 50,
      lastReportedFlagUsage: seen.toISOString(),
      lastUpdatedAt: expect.any(String),
    });
  });

  it("archives and revives only projects without active flags", async () => {
    const archive = (id: string) => server.request(`/api/admin/projects/archive/${id}`, { method: "POST" });
    const refused = await archive("search");
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("search-fresh");
    expect((await project("search")).body.archivedAt).toBeNull();

    expect((await archive("checkout")).status).toBe(200);
    expect(await listedIds()).not.toContain("checkout");
    expect(await listedIds("?archived=true")).toEqual(["checkout"]);
    expect((await project("checkout")).body.archivedAt).toEqual(expect.any(String));
    await expect(server.services.projects.requireActive(server.db, "checkout")).rejects.toMatchObject({
      status: 404,
      message: "Active project with id checkout does not exist",
    });
    expect((await latestEvent(server, "project-archived")).project).toBe("checkout");
    expect((await archive("checkout")).status).toBe(404);

    const revived = await server.request("/api/admin/projects/revive/checkout", { method: "POST" });
    expect(revived.status).toBe(200);
    expect(await listedIds("?archived=true")).toEqual([]);
    expect((await latestEvent(server, "project-revived")).project).toBe("checkout");
  });

  it("deletes a project without active flags, with its archived flags", async () => {
    const remove = (id: string) => server.request(`/api/admin/projects/${id}`, { method: "DELETE" });
    expect((await remove("default")).status).toBe(400);
    expect((await remove("search")).status).toBe(400);
    expect((await remove("nowhere")).status).toBe(404);

    await seedFlag(server, { name: "checkout-old", project: "checkout", archived: true });
    expect((await remove("checkout")).status).toBe(200);
    expect((await project("checkout")).status).toBe(404);
    expect(await server.db.selectFrom("features").where("name", "=", "checkout-old").execute()).toEqual([]);
    expect(await latestEvent(server, "project-deleted")).toMatchObject({
      project: "checkout",
      preData: { id: "checkout" },
    });
    expect((await latestEvent(server, "feature-deleted")).featureName).toBe("checkout-old");
    expect(await listedIds()).toEqual(["default", "search"]);
  });

  it("adds an environment to a project with a disabled row for each flag, and removes it with their strategies", async () => {
    const add = (environment: string, id = "search") =>
      server.request(`/api/admin/projects/${id}/environments`, { method: "POST", body: { environment } });
    const remove = (environment: string, id = "search") =>
      server.request(`/api/admin/projects/${id}/environments/${environment}`, { method: "DELETE" });
    const rows = (environment: string) =>
      server.db
        .selectFrom("feature_environments")
        .select(["feature_name", "enabled"])
        .where("environment", "=", environment)
        .where("feature_name", "like", "search-%")
        .orderBy("feature_name")
        .execute();

    expect((await add("development")).status).toBe(200);
    expect(await server.services.projects.environmentsOf(server.db, "search")).toEqual([
      "development",
      "production",
    ]);
    expect(await rows("development")).toEqual([
      { feature_name: "search-fresh", enabled: false },
      { feature_name: "search-old", enabled: false },
      { feature_name: "search-stale", enabled: false },
    ]);
    expect(await latestEvent(server, "project-environment-added")).toMatchObject({
      project: "search",
      environment: "development",
    });
    expect((await add("development")).status).toBe(409);
    expectInvalid(await add("nowhere"), "environment");
    expect((await add("development", "nowhere")).status).toBe(404);

    await server.db
      .insertInto("feature_strategies")
      .values({
        id: "dev-rule",
        feature_name: "search-fresh",
        project_name: "search",
        environment: "development",
        strategy_name: "default",
      })
      .execute();
    expect((await remove("development")).status).toBe(200);
    expect(await rows("development")).toEqual([]);
    expect(await server.db.selectFrom("feature_strategies").where("id", "=", "dev-rule").execute()).toEqual(
      [],
    );
    expect((await latestEvent(server, "project-environment-removed")).environment).toBe("development");
    expect((await remove("development")).status).toBe(404);

    const last = await remove("production");
    expect(last.status).toBe(400);
    expect(await server.services.projects.environmentsOf(server.db, "search")).toEqual(["production"]);
  });
});
