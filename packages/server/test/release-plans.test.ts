import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { databaseKinds, freshDatabase } from "./support/database.js";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// Release templates and plans through the HTTP API: the reference's routes and shapes, a
// milestone's start as the SDK sees it, progressions on time, and the refusals.

const BASE = "/api/admin/projects/default";
const TEMPLATES = "/api/admin/release-plan-templates";

const rollout = (percent: number) => ({
  name: "flexibleRollout",
  parameters: { rollout: String(percent), stickiness: "default", groupId: "" },
  constraints: [],
});

const template = (name: string, intervalMinutes?: number) => ({
  name,
  description: "10% then 50% then everyone",
  milestones: [10, 50, 100].map((percent, index) => ({
    name: `${percent}%`,
    sortOrder: index,
    strategies: [rollout(percent)],
    ...(intervalMinutes && index < 2 && { transitionCondition: { intervalMinutes } }),
  })),
});

describe.each(databaseKinds)("release plans (%s)", (kind) => {
  let server: TestServer;
  let flags = 0;

  beforeAll(async () => {
    // A minute of 150 ms: progressions fall due within a test.
    server = await startTestServer(kind, undefined, {
      releases: { minuteMs: 150, evaluationMs: 60_000, windowMs: 60_000 },
    });
  });
  afterAll(() => server?.close());

  const newFlag = async () => {
    const name = `release-${++flags}`;
    expect((await server.request(`${BASE}/features`, { method: "POST", body: { name } })).status).toBe(200);
    return name;
  };
  const env = (flag: string, environment = "development") =>
    `${BASE}/features/${flag}/environments/${environment}`;
  const served = async (flag: string) => {
    const reply = await server.request(`/api/client/features/${flag}`, { token: CLIENT_TOKEN });
    return reply.body as {
      enabled: boolean;
      strategies: { name: string; parameters: Record<string, string> }[];
    };
  };
  const rollouts = async (flag: string) => (await served(flag)).strategies.map((s) => s.parameters.rollout);
  const eventsOf = async (flag: string) =>
    (
      await server.db
        .selectFrom("events")
        .select(["type", "data"])
        .where("feature_name", "=", flag)
        .orderBy("id")
        .execute()
    ).map((event) => event.type);

  it("keeps a library of templates: create, read, replace, archive, delete", async () => {
    const created = await server.request(TEMPLATES, { method: "POST", body: template("library") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      discriminator: "template",
      name: "library",
      archivedAt: null,
      milestones: [
        {
          name: "10%",
          sortOrder: 0,
          strategies: [{ name: "flexibleRollout", parameters: { rollout: "10" } }],
        },
        { name: "50%", sortOrder: 1 },
        { name: "100%", sortOrder: 2 },
      ],
    });
    expect(created.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const id = created.body.id;
    expect((await server.request(`${TEMPLATES}/${id}`)).body.name).toBe("library");
    expect((await server.request(TEMPLATES, { method: "POST", body: template("library") })).status).toBe(409);

    const replaced = await server.request(`${TEMPLATES}/${id}`, {
      method: "PUT",
      body: { ...template("library"), milestones: template("library").milestones.slice(0, 2) },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.milestones).toHaveLength(2);
    // A kept milestone keeps its id.
    expect(replaced.body.milestones[0].id).toBe(created.body.milestones[0].id);

    expect((await server.request(`${TEMPLATES}/archive/${id}`, { method: "POST" })).status).toBe(200);
    expect((await server.request(TEMPLATES)).body.map((t: { id: string }) => t.id)).not.toContain(id);
    expect(
      (await server.request(`${TEMPLATES}?includeArchived=true`)).body.map((t: { id: string }) => t.id),
    ).toContain(id);
    expect((await server.request(`${TEMPLATES}/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(`${TEMPLATES}/${id}`)).status).toBe(404);
  });

  it("refuses a template with an unknown strategy, a bad parameter or a missing segment, storing nothing", async () => {
    const before = (await server.request(TEMPLATES)).body.length;
    for (const strategies of [
      [{ name: "no-such-strategy" }],
      [{ name: "flexibleRollout", parameters: { rollout: "150" } }],
      [{ ...rollout(10), segments: [999_999] }],
    ]) {
      const reply = await server.request(TEMPLATES, {
        method: "POST",
        body: { name: "broken", milestones: [{ name: "one", sortOrder: 0, strategies }] },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.name).toBe("ValidationError");
    }
    expect((await server.request(TEMPLATES)).body.length).toBe(before);
  });

  it("adds a plan from a template, and starting a milestone replaces the environment's strategies", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`plan-${flag}`),
    });
    await server.request(`${env(flag)}/strategies`, { method: "POST", body: { name: "default" } });
    await server.request(`${env(flag)}/on`, { method: "POST" });

    const added = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      discriminator: "plan",
      featureName: flag,
      environment: "development",
      releasePlanTemplateId: made.id,
      activeMilestoneId: null,
      safeguards: [],
    });
    // The plan's milestones are its own copy.
    expect(added.body.milestones[0].id).not.toBe(made.milestones[0].id);
    // Adding serves nothing yet.
    expect((await served(flag)).strategies.map((s) => s.name)).toEqual(["default"]);
    const second = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    expect(second.status).toBe(409);

    const plan = added.body;
    for (const [index, milestone] of plan.milestones.entries()) {
      const start = `${env(flag)}/release-plans/${plan.id}/milestones/${milestone.id}/start`;
      expect((await server.request(start, { method: "POST" })).status).toBe(200);
      expect(await rollouts(flag)).toEqual([["10", "50", "100"][index]]);
      // The group id is the flag's, so a user in at 10% stays in at 50%.
      expect((await served(flag)).strategies[0]!.parameters.groupId).toBe(flag);
      expect((await served(flag)).enabled).toBe(true);
    }
    const listed = await server.request(`${env(flag)}/release-plans`);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].activeMilestoneId).toBe(plan.milestones[2].id);
    expect(listed.body[0].milestones[2].startedAt).not.toBeNull();
    expect(await eventsOf(flag)).toEqual(
      expect.arrayContaining([
        "release-plan-added",
        "release-plan-milestone-started",
        "feature-strategy-add",
      ]),
    );

    const removed = await server.request(`${env(flag)}/release-plans/${plan.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect((await server.request(`${env(flag)}/release-plans`)).body).toEqual([]);
    // What the plan last served stays.
    expect(await rollouts(flag)).toEqual(["100"]);
  });

  it("answers 404 for a plan, milestone or template that is not there", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`missing-${flag}`),
    });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    const other = await newFlag();
    for (const [method, path] of [
      ["GET", `${env(other)}/release-plans/${plan.id}`],
      ["GET", `${env(flag, "production")}/release-plans/${plan.id}`],
      ["POST", `${env(flag)}/release-plans/${plan.id}/milestones/nope/start`],
      ["POST", `${env(other)}/release-plans/${plan.id}/milestones/${plan.milestones[0].id}/start`],
      ["DELETE", `${env(flag)}/release-plans/nope`],
      ["PUT", `${env(flag)}/progressions/nope`],
    ] as const) {
      const body =
        method === "PUT" ? { targetMilestone: "x", transitionCondition: { intervalMinutes: 1 } } : undefined;
      const reply = await server.request(path, { method, body });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.name).toBe("NotFoundError");
    }
    const unknownTemplate = await server.request(`${env(other)}/release-plans`, {
      method: "POST",
      body: { templateId: "nope" },
    });
    expect(unknownTemplate.status).toBe(404);
    await server.request(`${TEMPLATES}/archive/${made.id}`, { method: "POST" });
    const archived = await server.request(`${env(other)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    expect(archived.status).toBe(404);
    expect(archived.body.message).toContain("archived");
  });

  it("hands milestones over on time, each once", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`auto-${flag}`, 2),
    });
    await server.request(`${env(flag)}/on`, { method: "POST" });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    const started = Date.now();
    await server.request(`${env(flag)}/release-plans/${plan.id}/milestones/${plan.milestones[0].id}/start`, {
      method: "POST",
    });
    expect(await rollouts(flag)).toEqual(["10"]);
    await expect.poll(() => rollouts(flag), { timeout: 5000, interval: 20 }).toEqual(["50"]);
    // Two minutes of 150 ms each.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await expect.poll(() => rollouts(flag), { timeout: 5000, interval: 20 }).toEqual(["100"]);
    const { body: after } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
    expect(after.activeMilestoneId).toBe(plan.milestones[2].id);
    expect(after.milestones[0].progressionExecutedAt).not.toBeNull();
    const started_ = await server.db
      .selectFrom("events")
      .select("data")
      .where("type", "=", "release-plan-milestone-started")
      .where("feature_name", "=", flag)
      .orderBy("id")
      .execute();
    expect(started_.map((event) => (event.data as { automatic: boolean }).automatic)).toEqual([
      false,
      true,
      true,
    ]);
  });

  it("pauses a plan whose next step cannot be taken, saying why", async () => {
    const flag = await newFlag();
    const { body: segment } = await server.request("/api/admin/segments", {
      method: "POST",
      body: { name: `beta-${flag}`, constraints: [] },
    });
    const body = template(`broken-${flag}`, 1);
    body.milestones[1]!.strategies[0] = { ...rollout(50), segments: [segment.id] } as never;
    const { body: made } = await server.request(TEMPLATES, { method: "POST", body });
    await server.request(`${env(flag)}/on`, { method: "POST" });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    // Deleted while only the plan's second milestone names it.
    expect((await server.request(`/api/admin/segments/${segment.id}`, { method: "DELETE" })).status).toBe(
      204,
    );
    await server.request(`${env(flag)}/release-plans/${plan.id}/milestones/${plan.milestones[0].id}/start`, {
      method: "POST",
    });
    const pausedAt = async () =>
      (await server.request(`${env(flag)}/release-plans/${plan.id}`)).body.milestones[0].pausedAt;
    await expect.poll(pausedAt, { timeout: 5000, interval: 20 }).not.toBeNull();
    expect(await rollouts(flag)).toEqual(["10"]);
    const paused = await server.db
      .selectFrom("events")
      .select("data")
      .where("type", "=", "release-plan-progressions-paused")
      .where("feature_name", "=", flag)
      .executeTakeFirstOrThrow();
    expect((paused.data as { reason: string }).reason).toContain(`Segment ${segment.id}`);
    // Resumed, it waits a full interval again.
    expect(
      (await server.request(`${env(flag)}/progressions/${plan.id}/resume`, { method: "POST" })).status,
    ).toBe(200);
    const { body: resumed } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
    expect(resumed.milestones[0].pausedAt).toBeNull();
    expect(Date.parse(resumed.milestones[0].progressionDueAt)).toBeGreaterThan(Date.now() + 50);
    expect(
      (await server.request(`${env(flag)}/progressions/${plan.id}/resume`, { method: "POST" })).status,
    ).toBe(409);
  });

  it("makes, replaces and removes safeguards in the reference's shapes", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`guard-${flag}`),
    });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    const guard = (threshold: number) => ({
      impactMetric: {
        metricName: "unleash_counter_errors",
        timeRange: "day",
        aggregationMode: "rps",
        labelSelectors: { appName: ["shop"] },
      },
      triggerCondition: { operator: ">", threshold },
    });
    const first = await server.request(`${env(flag)}/release-plans/${plan.id}/safeguards`, {
      method: "PUT",
      body: guard(5),
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      action: { type: "pauseReleasePlanProgressions", id: plan.id },
      impactMetric: { ...guard(5).impactMetric, id: expect.stringMatching(/^[0-9A-Z]{26}$/) },
      triggerCondition: { operator: ">", threshold: 5 },
      triggeredAt: null,
    });
    // One per plan: a second PUT replaces it, keeping its id.
    const second = await server.request(`${env(flag)}/release-plans/${plan.id}/safeguards`, {
      method: "PUT",
      body: guard(9),
    });
    expect(second.body.id).toBe(first.body.id);
    const { body: withGuard } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
    expect(withGuard.safeguards).toEqual([second.body]);

    const own = await server.request(`${env(flag)}/safeguards`, { method: "PUT", body: guard(3) });
    expect(own.body.action).toEqual({
      type: "disableFeatureEnvironment",
      project: "default",
      featureName: flag,
      environment: "development",
    });
    expect((await server.request(`${env(flag)}/safeguards`)).body).toEqual([own.body]);

    const bad = await server.request(`${env(flag)}/safeguards`, {
      method: "PUT",
      body: { ...guard(3), triggerCondition: { operator: ">=", threshold: 3 } },
    });
    expect(bad.status).toBe(400);
    // The plan's safeguard is not the environment's, and the other way round.
    expect(
      (await server.request(`${env(flag)}/safeguards/${first.body.id}`, { method: "DELETE" })).status,
    ).toBe(404);
    expect(
      (
        await server.request(`${env(flag)}/release-plans/${plan.id}/safeguards/${own.body.id}`, {
          method: "DELETE",
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await server.request(`${env(flag)}/release-plans/${plan.id}/safeguards/${first.body.id}`, {
          method: "DELETE",
        })
      ).status,
    ).toBe(200);
    expect(
      (await server.request(`${env(flag)}/safeguards/${own.body.id}`, { method: "DELETE" })).status,
    ).toBe(200);
    expect((await server.request(`${env(flag)}/safeguards`)).body).toEqual([]);
    expect((await server.request(`${env(flag)}/release-plans/${plan.id}`)).body.safeguards).toEqual([]);
    expect(await eventsOf(flag)).toEqual(expect.arrayContaining(["safeguard-changed", "safeguard-deleted"]));
  });

  it("changes and removes a progression through the reference's routes", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`prog-${flag}`),
    });
    const { body: plan } = await server.request(`${env(flag)}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
    });
    const [first, second, last] = plan.milestones;
    expect(
      plan.milestones.map((milestone: { targetMilestone: string | null }) => milestone.targetMilestone),
    ).toEqual([second.id, last.id, null]);
    const set = await server.request(`${env(flag)}/progressions/${first.id}`, {
      method: "PUT",
      body: { targetMilestone: last.id, transitionCondition: { intervalMinutes: 1 } },
    });
    expect(set.status).toBe(200);
    const { body: changed } = await server.request(`${env(flag)}/release-plans/${plan.id}`);
    expect(changed.milestones[0]).toMatchObject({
      targetMilestone: last.id,
      transitionCondition: { intervalMinutes: 1 },
    });
    const self = await server.request(`${env(flag)}/progressions/${first.id}`, {
      method: "PUT",
      body: { targetMilestone: first.id, transitionCondition: { intervalMinutes: 1 } },
    });
    expect(self.status).toBe(400);
    const zero = await server.request(`${env(flag)}/progressions/${first.id}`, {
      method: "PUT",
      body: { targetMilestone: last.id, transitionCondition: { intervalMinutes: 0 } },
    });
    expect(zero.status).toBe(400);
    await server.request(`${env(flag)}/on`, { method: "POST" });
    await server.request(`${env(flag)}/release-plans/${plan.id}/milestones/${first.id}/start`, {
      method: "POST",
    });
    // The target skips the second milestone.
    await expect.poll(() => rollouts(flag), { timeout: 5000, interval: 20 }).toEqual(["100"]);
    expect((await server.request(`${env(flag)}/progressions/${first.id}`, { method: "DELETE" })).status).toBe(
      200,
    );
    expect((await server.request(`${env(flag)}/progressions/${first.id}`, { method: "DELETE" })).status).toBe(
      404,
    );
    expect(await eventsOf(flag)).toEqual(
      expect.arrayContaining(["milestone-progression-created", "milestone-progression-deleted"]),
    );
  });

  it("goes through change requests where they are required: the approved plan then advances by itself", async () => {
    const flag = await newFlag();
    await server.request(`${BASE}/environments/production/change-requests/config`, {
      method: "PUT",
      body: { changeRequestsEnabled: true, requiredApprovals: 1 },
    });
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`reviewed-${flag}`, 2),
    });
    const person = async (rootRole: "Editor" | "Admin") => {
      const user = await createUser(server, { rootRole });
      const cookie = await login(server, user.username, user.password);
      return (method: string, path: string, body?: unknown) =>
        server.request(path, { method, body, token: null, headers: { cookie } });
    };
    const author = await person("Editor");
    const reviewer = await person("Admin");
    const through = async (changes: unknown) => {
      const draft = await author("POST", `${BASE}/environments/production/change-requests`, changes);
      expect(draft.status, JSON.stringify(draft.body)).toBe(200);
      const id = draft.body.id;
      expect(
        (await author("PUT", `${BASE}/change-requests/${id}/state`, { state: "In review" })).status,
      ).toBe(200);
      expect(
        (await reviewer("PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" })).status,
      ).toBe(200);
      return await reviewer("PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    };
    const prod = env(flag, "production");
    const served = async () =>
      (await server.request(`/api/client/features/${flag}`, { token: "*:production.release-plans" })).body;
    await server.services.tokens.ensure(system("test"), "client", ["*:production.release-plans"]);

    const added = await through({
      feature: flag,
      action: "addReleasePlan",
      payload: { templateId: made.id },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const { body: plans } = await server.request(`${prod}/release-plans`);
    expect(plans).toHaveLength(1);
    const plan = plans[0];
    await through({ feature: flag, action: "updateEnabled", payload: { enabled: true } });
    const started = await through({
      feature: flag,
      action: "startMilestone",
      payload: { milestoneId: plan.milestones[0].id },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(
      (await served()).strategies.map((s: { parameters: { rollout: string } }) => s.parameters.rollout),
    ).toEqual(["10"]);
    // The approved plan's own steps follow without another review.
    await expect
      .poll(
        async () =>
          (await served()).strategies.map((s: { parameters: { rollout: string } }) => s.parameters.rollout),
        {
          timeout: 5000,
          interval: 20,
        },
      )
      .toEqual(["100"]);

    // What a request reviewed is what it applies: a template edited meanwhile is a conflict.
    const other = await newFlag();
    const draft = await author("POST", `${BASE}/environments/production/change-requests`, {
      feature: other,
      action: "addReleasePlan",
      payload: { templateId: made.id },
    });
    const id = draft.body.id;
    await author("PUT", `${BASE}/change-requests/${id}/state`, { state: "In review" });
    await reviewer("PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
    const edited = template(`reviewed-${flag}`, 2);
    edited.milestones[0]!.strategies = [rollout(20)];
    await server.request(`${TEMPLATES}/${made.id}`, { method: "PUT", body: edited });
    const applied = await reviewer("PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    expect(applied.status).toBe(409);
    expect((await server.request(`${env(other, "production")}/release-plans`)).body).toEqual([]);
  });

  it("refuses people without the permission, and direct steps where change requests are required", async () => {
    const flag = await newFlag();
    const { body: made } = await server.request(TEMPLATES, {
      method: "POST",
      body: template(`gate-${flag}`),
    });
    const viewer = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, viewer.username, viewer.password);
    const asViewer = (method: string, path: string, body?: unknown) =>
      server.request(path, { method, body, token: null, headers: { cookie } });
    expect((await asViewer("POST", TEMPLATES, template("viewer's"))).status).toBe(403);
    expect((await asViewer("POST", `${env(flag)}/release-plans`, { templateId: made.id })).status).toBe(403);

    await server.request(`${BASE}/environments/production/change-requests/config`, {
      method: "PUT",
      body: { changeRequestsEnabled: true, requiredApprovals: 1 },
    });
    const editor = await createUser(server, { rootRole: "Editor" });
    const editorCookie = await login(server, editor.username, editor.password);
    const refused = await server.request(`${env(flag, "production")}/release-plans`, {
      method: "POST",
      body: { templateId: made.id },
      token: null,
      headers: { cookie: editorCookie },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("requires change requests");
    expect((await server.request(`${env(flag, "production")}/release-plans`)).body).toEqual([]);
  });
});

describe.runIf(process.env.DATABASE_URL)(
  "release plans on two instances sharing one PostgreSQL database",
  () => {
    let first: TestServer;
    let second: TestServer;
    let shared: Awaited<ReturnType<typeof freshDatabase>>;

    beforeAll(async () => {
      shared = await freshDatabase("postgres");
      const releases = { minuteMs: 100, evaluationMs: 60_000, windowMs: 60_000 };
      first = await startTestServer("postgres", shared, { releases });
      second = await startTestServer("postgres", shared, { releases });
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
      await shared?.close();
    });

    it("advances each milestone once, however many instances try at the same moment", async () => {
      const flag = "two-instances";
      await first.request(`${BASE}/features`, { method: "POST", body: { name: flag } });
      await first.request(`${BASE}/features/${flag}/environments/development/on`, { method: "POST" });
      const milestones = [5, 10, 20, 40, 80, 100].map((percent, index) => ({
        name: `${percent}%`,
        sortOrder: index,
        strategies: [rollout(percent)],
        transitionCondition: { intervalMinutes: 1 },
      }));
      const { body: made } = await first.request(TEMPLATES, {
        method: "POST",
        body: { name: "six steps", milestones },
      });
      const place = `${BASE}/features/${flag}/environments/development`;
      const { body: plan } = await first.request(`${place}/release-plans`, {
        method: "POST",
        body: { templateId: made.id },
      });
      await second.request(`${place}/release-plans/${plan.id}/milestones/${plan.milestones[0].id}/start`, {
        method: "POST",
      });
      // Both instances' timers run; besides, each is asked over and over, at once.
      const deadline = Date.now() + 10_000;
      const last = plan.milestones.at(-1).id;
      for (;;) {
        await Promise.all(
          [first, second].flatMap((server) =>
            Array.from({ length: 4 }, () => server.services.releasePlans.advanceDue()),
          ),
        );
        const { body } = await second.request(`${place}/release-plans/${plan.id}`);
        if (body.activeMilestoneId === last || Date.now() > deadline) break;
      }
      const started = await first.db
        .selectFrom("events")
        .select("data")
        .where("type", "=", "release-plan-milestone-started")
        .where("feature_name", "=", flag)
        .orderBy("id")
        .execute();
      expect(started.map((event) => (event.data as { milestoneName: string }).milestoneName)).toEqual(
        milestones.map((milestone) => milestone.name),
      );
      const served = await first.request(`/api/client/features/${flag}`, { token: CLIENT_TOKEN });
      expect(
        served.body.strategies.map((s: { parameters: { rollout: string } }) => s.parameters.rollout),
      ).toEqual(["100"]);
    });
  },
);
