import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { createUser } from "./support/people.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// The health report (endpoint 1), the insights (endpoint 10) and the project listing's
// time to production, over a project whose flags, events and memberships are dated by hand,
// so every figure below is counted here from those dates.

const DAY = 86_400_000;
const SHOP = "/api/admin/projects/shop";

describe.each(databaseKinds)("project health and insights (%s)", (kind) => {
  let server: TestServer;
  const ago = (ms: number) => new Date(Date.now() - ms);
  const ok = async (method: string, path: string, body?: unknown) => {
    const reply = await server.request(path, { method, body });
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  const flag = (name: string, type: string, project = "shop") =>
    ok("POST", `/api/admin/projects/${project}/features`, { name, type });
  const switchOn = (name: string, environment: string, project = "shop") =>
    ok("POST", `/api/admin/projects/${project}/features/${name}/environments/${environment}/on`);
  const dateFlag = (name: string, created: Date, archived?: Date) =>
    sql`update features set created_at = ${created}, archived_at = coalesce(${archived ?? null}::timestamptz, archived_at) where name = ${name}`.execute(
      server.db,
    );
  /** The ids of a flag's `feature-environment-enabled` events, oldest first. */
  const enabledEvents = async (name: string) =>
    (
      await server.db
        .selectFrom("events")
        .select("id")
        .where("feature_name", "=", name)
        .where("type", "=", "feature-environment-enabled")
        .orderBy("id")
        .execute()
    ).map((row) => row.id);
  const dateEvent = (id: number | string, at: Date) =>
    sql`update events set created_at = ${at} where id = ${id}`.execute(server.db);
  let shopEvents = 0;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await ok("POST", "/api/admin/projects", { id: "shop", name: "Shop" });
    await ok("POST", "/api/admin/projects", { id: "quick", name: "Quick" });
    for (const [name, type] of [
      ["fast", "release"],
      ["slow", "release"],
      ["trial", "experiment"],
      ["dev-only", "release"],
      ["ops", "operational"],
      ["old-gone", "release"],
      ["gone", "release"],
    ] as const) {
      await flag(name, type);
    }
    await switchOn("fast", "production");
    await switchOn("slow", "production");
    await ok("POST", `${SHOP}/features/slow/environments/production/off`);
    await switchOn("slow", "production");
    await switchOn("trial", "production");
    await switchOn("dev-only", "development");
    await ok("POST", `${SHOP}/stale`, { features: ["dev-only"], stale: true });
    await ok("POST", `${SHOP}/archive`, { features: ["old-gone", "gone"] });

    // Members: Ann joins now, Ben and a group holding Cy joined 40 days ago.
    const [ann, ben, cy] = await Promise.all([1, 2, 3].map(() => createUser(server, { rootRole: "Viewer" })));
    const group = await ok("POST", "/api/admin/groups", {
      name: "Buyers",
      users: [{ user: { id: cy!.id } }],
    });
    const roles = (await ok("GET", `${SHOP}/access`)).roles as { id: number; name: string }[];
    const member = roles.find((role) => role.name === "Member")!.id;
    await ok("POST", `${SHOP}/access`, { roles: [member], users: [ann!.id, ben!.id], groups: [group.id] });
    await sql`update project_user_roles set created_at = ${ago(40 * DAY)} where project = 'shop' and user_id = ${ben!.id}`.execute(
      server.db,
    );
    await sql`update project_group_roles set created_at = ${ago(40 * DAY)} where project = 'shop'`.execute(
      server.db,
    );

    // Flags: created in the current window (fast, trial, dev-only, ops, gone) or the past one
    // (slow, old-gone); gone archived in the current window, old-gone in the past one.
    await dateFlag("fast", ago(10 * DAY + 3 * 3_600_000));
    await dateFlag("slow", ago(50 * DAY));
    await dateFlag("trial", ago(20 * DAY));
    await dateFlag("dev-only", ago(5 * DAY));
    await dateFlag("ops", ago(2 * DAY));
    await dateFlag("gone", ago(5 * DAY), ago(DAY));
    await dateFlag("old-gone", ago(55 * DAY), ago(35 * DAY));
    // slow (release, 50 days) is overdue; ops (operational, 2 days) and trial (20) are not.
    expect(await server.services.staleness.run()).toEqual(["slow"]);

    // Every event of the project 45 days old (the past window), then: fast first switched on
    // in production 3 hours ago, 10 days after its creation; slow first 45 days ago, 5 days
    // after its creation (its second switch-on, a day ago, does not count); two events older
    // than both windows.
    await sql`update events set created_at = ${ago(45 * DAY)} where project = 'shop'`.execute(server.db);
    const [fastOn] = await enabledEvents("fast");
    const [, slowAgain] = await enabledEvents("slow");
    await dateEvent(fastOn!, ago(3 * 3_600_000));
    await dateEvent(slowAgain!, ago(DAY));
    const created = await server.db
      .selectFrom("events")
      .select("id")
      .where("project", "=", "shop")
      .where("type", "=", "feature-created")
      .orderBy("id")
      .limit(2)
      .execute();
    for (const event of created) await dateEvent(event.id, ago(61 * DAY));
    shopEvents = Number(
      (
        await server.db
          .selectFrom("events")
          .select((eb) => eb.fn.countAll().as("count"))
          .where("project", "=", "shop")
          .executeTakeFirstOrThrow()
      ).count,
    );

    // A project whose only release flag went to production on its first day.
    await flag("instant", "release", "quick");
    await switchOn("instant", "production", "quick");
  });

  afterAll(async () => {
    await server?.close();
  });

  const stats = () => ({
    avgTimeToProdCurrentWindow: 7.5,
    createdCurrentWindow: 4,
    createdPastWindow: 1,
    archivedCurrentWindow: 1,
    archivedPastWindow: 1,
    projectActivityCurrentWindow: 2,
    projectActivityPastWindow: shopEvents - 4,
    projectMembersAddedCurrentWindow: 1,
  });

  it("reports a project's health field by field (endpoint 1)", async () => {
    const reply = await server.request(`${SHOP}/health-report`);
    expect(reply.status).toBe(200);
    const { features, createdAt, ...rest } = reply.body;
    expect(rest).toEqual({
      version: 1,
      name: "Shop",
      description: null,
      defaultStickiness: "default",
      mode: "open",
      featureLimit: null,
      members: 3,
      // 5 active flags, 1 stale (dev-only), 1 potentially stale (slow): 100 − 20 − 20.
      health: 60,
      technicalDebt: 40,
      environments: [
        { environment: "development", changeRequestsEnabled: false },
        { environment: "production", changeRequestsEnabled: false },
      ],
      updatedAt: null,
      favorite: false,
      stats: stats(),
      featureNaming: { pattern: null, example: null, description: null },
      potentiallyStaleCount: 1,
      activeCount: 4,
      staleCount: 1,
    });
    expect(new Date(createdAt).getTime()).toBeGreaterThan(Date.now() - DAY);
    const byName = new Map(features.map((entry: { name: string }) => [entry.name, entry]));
    expect([...byName.keys()].sort()).toEqual(["dev-only", "fast", "ops", "slow", "trial"]);
    expect(byName.get("dev-only")).toMatchObject({ type: "release", stale: true });
    expect(byName.get("fast")).toMatchObject({
      type: "release",
      stale: false,
      environments: expect.arrayContaining([expect.objectContaining({ name: "production", enabled: true })]),
    });
  });

  it("gives a project's insights field by field (endpoint 10)", async () => {
    const reply = await server.request(`${SHOP}/insights`);
    expect(reply.status).toBe(200);
    const health = { activeCount: 4, potentiallyStaleCount: 1, staleCount: 1 };
    expect(reply.body).toEqual({
      stats: stats(),
      health: { rating: 60, ...health },
      technicalDebt: { rating: 40, ...health },
      // Release flags only, first switched on in production: trial is an experiment,
      // dev-only never reached production.
      leadTime: {
        projectAverage: 7.5,
        features: [
          { name: "fast", timeToProduction: 10 },
          { name: "slow", timeToProduction: 5 },
        ],
      },
      featureTypeCounts: [
        { type: "experiment", count: 1 },
        { type: "operational", count: 1 },
        { type: "release", count: 3 },
      ],
      members: { currentMembers: 3, change: 1 },
    });
  });

  it("counts a first-day trip to production as 0.1 days on average, as the reference does", async () => {
    const insights = (await server.request("/api/admin/projects/quick/insights")).body;
    expect(insights.leadTime).toEqual({
      projectAverage: 0.1,
      features: [{ name: "instant", timeToProduction: 0 }],
    });
    expect(insights.stats.avgTimeToProdCurrentWindow).toBe(0.1);
    expect(insights.health).toEqual({ rating: 100, activeCount: 1, potentiallyStaleCount: 0, staleCount: 0 });
    expect(insights.members).toEqual({ currentMembers: 0, change: 0 });
  });

  it("shows the real time to production and staleness in the project listing and details", async () => {
    const { projects } = (await server.request("/api/admin/projects")).body;
    const entry = (id: string) => projects.find((project: { id: string }) => project.id === id);
    expect(entry("shop")).toMatchObject({
      health: 60,
      featureCount: 5,
      staleFeatureCount: 1,
      potentiallyStaleFeatureCount: 1,
      avgTimeToProduction: 7.5,
      memberCount: 3,
    });
    expect(entry("quick")).toMatchObject({ avgTimeToProduction: 0.1 });
    expect(entry("default")).toMatchObject({ avgTimeToProduction: 0, potentiallyStaleFeatureCount: 0 });
    expect((await server.request(SHOP)).body).toMatchObject({ avgTimeToProduction: 7.5, health: 60 });
  });

  it("answers 404 for an unknown project, 401 without credentials and 403 for an SDK token", async () => {
    for (const path of ["health-report", "insights"]) {
      const unknown = await server.request(`/api/admin/projects/nowhere/${path}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({
        name: "NotFoundError",
        message: "Could not find project with id nowhere",
      });
      const anonymous = await server.request(`${SHOP}/${path}`, { token: null });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ name: "AuthenticationRequired" });
      const sdk = await server.request(`${SHOP}/${path}`, { token: CLIENT_TOKEN });
      expect(sdk.status).toBe(403);
      expect(sdk.body).toMatchObject({ name: "NoAccessError" });
    }
  });
});
