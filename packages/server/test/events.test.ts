import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN_USER_ID } from "../src/access/actor.js";
import { up as nameWhatEventsAreAbout } from "../src/db/migrations/0014_event_names.js";
import { databaseKinds, freshDatabase } from "./support/database.js";
import { expectInvalid } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("event log (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.request("/api/admin/projects", { method: "POST", body: { id: "shop", name: "Shop" } });
    for (const [project, name] of [
      ["default", "dark-mode"],
      ["shop", "one-click-buy"],
      ["shop", "gift-cards"],
    ]) {
      await server.request(`/api/admin/projects/${project}/features`, {
        method: "POST",
        body: { name, description: `About ${name}` },
      });
    }
    await server.request("/api/admin/projects/shop/features/gift-cards/environments/production/on", {
      method: "POST",
    });
  });
  afterAll(() => server.close());

  const search = (body: unknown) => server.request("/api/admin/events/search", { method: "POST", body });
  const summary = (events: { type: string; featureName: string | null }[]) =>
    events.map((event) => `${event.type} ${event.featureName ?? "-"}`);

  it("finds events by type, project, flag and free text, newest first", async () => {
    const created = await search({ type: "feature-created" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ version: 1, totalEvents: 3 });
    expect(summary(created.body.events)).toEqual([
      "feature-created gift-cards",
      "feature-created one-click-buy",
      "feature-created dark-mode",
    ]);
    expect(created.body.events[0]).toEqual({
      id: expect.any(Number),
      type: "feature-created",
      createdAt: expect.any(String),
      createdBy: "init-admin",
      // An API token is no user: the reference records this id for admin tokens.
      createdByUserId: ADMIN_TOKEN_USER_ID,
      project: "shop",
      environment: null,
      featureName: "gift-cards",
      data: expect.objectContaining({ name: "gift-cards", description: "About gift-cards" }),
      preData: null,
      tags: [],
    });

    expect(summary((await search({ project: "shop", feature: "gift-cards" })).body.events)).toEqual([
      "feature-environment-enabled gift-cards",
      "feature-strategy-add gift-cards",
      "feature-created gift-cards",
    ]);
    expect(summary((await search({ query: "ONE-CLICK" })).body.events)).toEqual([
      "feature-created one-click-buy",
    ]);
    expect((await search({ query: "100%_" })).body).toMatchObject({ events: [], totalEvents: 0 });
  });

  it("finds events by author and by when they were made", async () => {
    const all = (await search({})).body;
    const byAdmin = all.events.filter((event: { createdBy: string }) => event.createdBy === "init-admin");
    expect(byAdmin.length).toBeGreaterThan(0);
    expect((await search({ createdBy: "INIT-" })).body.events).toEqual(byAdmin);
    expect((await search({ createdBy: "someone-else" })).body).toMatchObject({ events: [], totalEvents: 0 });
    const oldest = all.events.at(-1);
    const newest = all.events[0];
    expect((await search({ to: oldest.createdAt })).body.totalEvents).toBe(0);
    const since = (await search({ from: newest.createdAt })).body.events;
    expect(since.map((event: { id: number }) => event.id)).toContain(newest.id);
    expect(since.every((event: { createdAt: string }) => event.createdAt >= newest.createdAt)).toBe(true);
    const later = new Date(Date.parse(newest.createdAt) + 1000).toISOString();
    expect((await search({ from: oldest.createdAt, to: later })).body.totalEvents).toBe(all.totalEvents);
    expectInvalid(await search({ from: "yesterday" }), "from");
  });

  it("pages with limit, and offset as the event id to list from, counting every match", async () => {
    const all = (await search({ project: "shop" })).body;
    const second = all.events[1];
    const page = (await search({ project: "shop", limit: 2, offset: second.id })).body;
    expect(page.totalEvents).toBe(all.totalEvents);
    expect(page.events).toEqual(all.events.slice(1, 3));
    // The id need not be a match's; 0 is no event's and lists from the newest.
    const from = all.events[0].id - 1;
    expect((await search({ project: "shop", offset: from })).body.events).toEqual(
      all.events.filter((event: { id: number }) => event.id <= from),
    );
    expect((await search({ project: "shop", offset: 0 })).body.events).toEqual(all.events);
    expect((await search({ project: "shop", offset: all.events.at(-1).id - 1 })).body).toMatchObject({
      events: [],
      totalEvents: all.totalEvents,
    });
    expectInvalid(await search({ limit: 0 }), "limit");
    expectInvalid(await search({ limit: 101 }), "limit");
    expectInvalid(await search({ offset: -1 }), "offset");
  });

  it("refuses a type outside the spec's event list", async () => {
    expectInvalid(await search({ type: "feature-made" }), "type");
    expectInvalid(await search({ type: "Feature-Created" }), "type");
    expect((await search({ type: "segment-deleted" })).body).toMatchObject({ events: [], totalEvents: 0 });
  });

  it("lists events on GET, filtered by project", async () => {
    const listed = await server.request("/api/admin/events?project=default");
    expect(listed.status).toBe(200);
    expect(listed.body.events.every((event: { project: string }) => event.project === "default")).toBe(true);
    expect(summary(listed.body.events)).toContain("feature-created dark-mode");
    expect((await server.request("/api/admin/events", { token: null })).status).toBe(401);
  });

  it("carries on a flag's events the tags the flag has when each is written", async () => {
    const tags = [{ type: "simple", value: "launch-team" }];
    const created = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "born-tagged", tags },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await server.request("/api/admin/projects/default/features/born-tagged/environments/development/on", {
      method: "POST",
    });
    const found = (await search({ feature: "born-tagged" })).body.events;
    const byType = Object.fromEntries(found.map((event: { type: string }) => [event.type, event]));
    expect(byType["feature-created"].tags).toEqual(tags);
    expect(byType["feature-environment-enabled"].tags).toEqual(tags);
    // Events about no flag carry none.
    const [project] = (await search({ type: "project-created" })).body.events;
    expect(project.tags).toEqual([]);
  });

  it("matches the free-text query against the author's display name and e-mail", async () => {
    const author = await createUser(server, {
      rootRole: "Editor",
      username: "ghopper",
      name: "Grace Hopper",
      email: "grace@navy.example",
    });
    const cookie = await login(server, author.username, author.password);
    const made = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      token: null,
      headers: { cookie },
      body: { name: "compiled" },
    });
    expect(made.status).toBe(200);
    for (const query of ["grace hop", "NAVY.example"]) {
      const found = (await search({ query, type: "feature-created" })).body;
      expect(summary(found.events), query).toEqual(["feature-created compiled"]);
      expect(found.totalEvents).toBe(1);
    }
  });

  it("writes no event for a rejected change", async () => {
    const before = (await search({})).body.totalEvents;
    await server.request("/api/admin/projects/shop/features", {
      method: "POST",
      body: { name: "gift-cards" },
    });
    await server.request("/api/admin/projects/shop/features/gift-cards/environments/production/strategies", {
      method: "POST",
      body: { name: "nonexistent" },
    });
    expect((await search({})).body.totalEvents).toBe(before);
  });

  it("hands what is logged after commit to outbox consumers, as the log lists it, oldest first", async () => {
    const handed: unknown[] = [];
    await server.services.events.outbox.register({
      name: "events-test",
      handle: async (batch) => {
        handed.push(...batch);
      },
    });
    await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "outboxed" },
    });
    await server.request("/api/admin/projects/default/features/outboxed/environments/development/on", {
      method: "POST",
    });
    const logged = (await search({ feature: "outboxed" })).body.events.reverse();
    expect(logged.length).toBeGreaterThan(1);
    await expect.poll(() => handed.length).toBe(logged.length);
    expect(handed).toEqual(logged);
    // The cursor moves once the handler has returned: a moment after the last event was handed.
    await expect.poll(async () => (await server.services.events.outbox.lag())["events-test"]).toBe(0);
  });
});

describe("naming the projects and flags of the events logged before the upgrade (migration 0014)", () => {
  it("finds them in the event's columns, data and preData", async () => {
    const database = await freshDatabase("pglite");
    try {
      const { db } = database;
      await sql`alter table events drop column named_projects, drop column named_flags; drop function event_names`.execute(
        db,
      );
      const event = (
        type: string,
        rest: { project?: string; feature_name?: string; data?: unknown; pre_data?: unknown },
      ) => ({
        type,
        created_by: "before",
        project: rest.project ?? null,
        feature_name: rest.feature_name ?? null,
        data: rest.data === undefined ? null : JSON.stringify(rest.data),
        pre_data: rest.pre_data === undefined ? null : JSON.stringify(rest.pre_data),
      });
      await db
        .insertInto("events")
        .values([
          event("api-token-created", { data: { project: "[]", projects: ["a", "b"] } }),
          event("segment-updated", { project: "c", data: { project: "c" }, pre_data: { project: "d" } }),
          event("feature-project-change", {
            project: "f",
            feature_name: "moved",
            data: { oldProject: "e", newProject: "f" },
          }),
          event("features-exported", { data: { environment: "development", features: ["x", "y"] } }),
          event("api-token-created", { data: { project: "*", projects: ["*"] } }),
          event("strategy-order-changed", {
            project: "g",
            feature_name: "z",
            data: [{ id: "s", sortOrder: 0 }],
          }),
        ])
        .execute();
      await nameWhatEventsAreAbout(db as unknown as Kysely<unknown>);
      const rows = await db
        .selectFrom("events")
        .select(["named_projects", "named_flags"])
        .where("created_by", "=", "before")
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { named_projects: ["a", "b"], named_flags: [] },
        { named_projects: ["c", "d"], named_flags: [] },
        { named_projects: ["e", "f"], named_flags: ["moved"] },
        { named_projects: [], named_flags: ["x", "y"] },
        { named_projects: [], named_flags: [] },
        { named_projects: ["g"], named_flags: ["z"] },
      ]);
    } finally {
      await database.close();
    }
  });
});
