import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, freshDatabase } from "./support/database.js";
import { createUser, login, type RootRole } from "./support/people.js";
import { type Reply, startTestServer, type TestServer } from "./support/server.js";

// Change requests driven through the HTTP API, as two people and an admin would: every
// transition, every refusal (with the database unchanged), atomic application, conflicts,
// and the scheduler.

const BASE = "/api/admin/projects/default";
const PROD = `${BASE}/environments/production`;

interface Person {
  id: number;
  cookie: string;
}

describe.each(databaseKinds)("change requests (%s)", (kind) => {
  let server: TestServer;
  let alice: Person;
  let bob: Person;
  let viewer: Person;
  let prodToken: string;
  let flagCount = 0;

  const personWith = async (rootRole: RootRole): Promise<Person> => {
    const user = await createUser(server, { rootRole });
    return { id: user.id, cookie: await login(server, user.username, user.password) };
  };
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
  const as = (who: Person, method: string, path: string, body?: unknown): Promise<Reply<any>> =>
    server.request(path, { method, body, token: null, headers: { cookie: who.cookie } });
  const admin = (method: string, path: string, body?: unknown) => server.request(path, { method, body });

  /** A flag with one strategy in production, switched off there. */
  const newFlag = async (): Promise<string> => {
    flagCount += 1;
    const name = `checkout-${flagCount}`;
    expect((await admin("POST", `${BASE}/features`, { name })).status).toBe(200);
    const strategy = await admin("POST", `${BASE}/features/${name}/environments/production/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "50", stickiness: "default", groupId: name },
    });
    expect(strategy.status).toBe(200);
    return name;
  };
  const served = async (name: string) => {
    const reply = await server.request("/api/client/features", { token: prodToken });
    return reply.body.features.find((flag: { name: string }) => flag.name === name);
  };
  const stateOf = async (id: number) => (await admin("GET", `${BASE}/change-requests/${id}`)).body;
  const eventTypes = async (since: number) =>
    (
      await server.db
        .selectFrom("events")
        .select(["type", "id"])
        .where("id", ">", since)
        .orderBy("id")
        .execute()
    ).map((event) => event.type);
  const lastEventId = async () =>
    (
      await server.db
        .selectFrom("events")
        .select((eb) => eb.fn.max("id").as("id"))
        .executeTakeFirstOrThrow()
    ).id ?? 0;
  /** A request by `author` holding the changes, sent to review. */
  const submitted = async (author: Person, changes: unknown): Promise<number> => {
    const draft = await as(author, "POST", `${PROD}/change-requests`, changes);
    expect(draft.status).toBe(200);
    const review = await as(author, "PUT", `${BASE}/change-requests/${draft.body.id}/state`, {
      state: "In review",
    });
    expect(review.status).toBe(200);
    return draft.body.id;
  };
  const approved = async (author: Person, changes: unknown): Promise<number> => {
    const id = await submitted(author, changes);
    expect(
      (await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" })).body.state,
    ).toBe("Approved");
    return id;
  };
  /** Reads until `done`, however long the machine's load makes the work in the background take. */
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const scheduledSuccess = (id: number) =>
    server.db
      .selectFrom("events")
      .selectAll()
      .where("type", "=", "change-request-scheduled-application-success")
      .where("data", "@>", JSON.stringify({ changeRequestId: id }))
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    server = await startTestServer(kind);
    [alice, bob, viewer] = [
      await personWith("Editor"),
      await personWith("Editor"),
      await personWith("Viewer"),
    ];
    const token = await admin("POST", "/api/admin/api-tokens", {
      tokenName: "prod-sdk",
      type: "client",
      environment: "production",
      projects: ["*"],
    });
    prodToken = token.body.secret;
    const configured = await admin("PUT", `${PROD}/change-requests/config`, {
      changeRequestsEnabled: true,
      requiredApprovals: 1,
    });
    expect(configured.status).toBe(204);
  });
  afterAll(() => server?.close());

  it("is configured per environment, with its event", async () => {
    const config = await admin("GET", `${BASE}/change-requests/config`);
    expect(config.body).toEqual(
      expect.arrayContaining([
        { environment: "production", type: "production", changeRequestEnabled: true, requiredApprovals: 1 },
        {
          environment: "development",
          type: "development",
          changeRequestEnabled: false,
          requiredApprovals: null,
        },
      ]),
    );
    const refused = await admin("PUT", `${PROD}/change-requests/config`, {
      changeRequestsEnabled: true,
      requiredApprovals: 11,
    });
    expect(refused.status).toBe(400);
    expect(
      (await as(alice, "PUT", `${PROD}/change-requests/config`, { changeRequestsEnabled: false })).status,
    ).toBe(403);
    const event = await server.db
      .selectFrom("events")
      .selectAll()
      .where("type", "=", "change-request-configuration-updated")
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({ project: "default", environment: "production" });
    expect(event.data).toEqual({ changeRequestsEnabled: true, requiredApprovals: 1 });
  });

  it("takes a change submitted by one person, approved by another and applied by the first to the SDKs", async () => {
    const flag = await newFlag();
    const direct = await as(alice, "POST", `${BASE}/features/${flag}/environments/production/on`);
    expect(direct.status).toBe(403);
    expect(direct.body.name).toBe("NoAccessError");
    expect(direct.body.message).toContain("requires change requests");
    expect((await served(flag)).enabled).toBe(false);
    // Development requires nothing: changed at once.
    expect((await as(alice, "POST", `${BASE}/features/${flag}/environments/development/on`)).status).toBe(
      200,
    );

    const etag = (await server.request("/api/client/features", { token: prodToken })).headers.get("etag");
    const since = await lastEventId();
    const draft = await as(alice, "POST", `${PROD}/change-requests`, {
      feature: flag,
      action: "updateEnabled",
      payload: { enabled: true },
    });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({
      state: "Draft",
      environment: "production",
      project: "default",
      minApprovals: 1,
      createdBy: { id: alice.id },
      features: [{ name: flag, changes: [{ action: "updateEnabled", payload: { enabled: true } }] }],
    });
    const id = draft.body.id;
    expect(
      (await as(alice, "GET", `${BASE}/change-requests/pending`)).body.map((r: { id: number }) => r.id),
    ).toContain(id);
    expect((await as(bob, "GET", `${BASE}/change-requests/pending`)).body).toEqual([]);

    // Refusals, each leaving the request as it was.
    const refuse = async (who: Person, body: object, status: number, name: string) => {
      const before = await stateOf(id);
      const reply = await as(who, "PUT", `${BASE}/change-requests/${id}/state`, body);
      expect([reply.status, reply.body.name]).toEqual([status, name]);
      expect(await stateOf(id)).toEqual(before);
    };
    await refuse(bob, { state: "In review" }, 403, "NoAccessError");
    await refuse(alice, { state: "Approved" }, 403, "NoAccessError");
    expect(
      (await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "In review" })).body.state,
    ).toBe("In review");
    await refuse(alice, { state: "Approved" }, 403, "NoAccessError");
    await refuse(viewer, { state: "Approved" }, 403, "NoAccessError");
    await refuse(alice, { state: "Applied" }, 409, "ConflictError");
    await refuse(
      bob,
      { state: "Scheduled", scheduledAt: new Date(Date.now() + 60_000).toISOString() },
      409,
      "ConflictError",
    );
    expect(
      (
        await server.request(`${BASE}/change-requests/${id}/state`, {
          method: "PUT",
          body: { state: "Approved" },
        })
      ).status,
    ).toBe(403);

    const approvedReply = await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
    expect(approvedReply.body).toMatchObject({
      state: "Approved",
      approvals: [{ createdBy: { id: bob.id } }],
    });
    await refuse(bob, { state: "Approved" }, 409, "ConflictError");
    // Nothing of the request reached the SDKs yet.
    const unchanged = await server.request("/api/client/features", {
      token: prodToken,
      headers: { "if-none-match": etag! },
    });
    expect(unchanged.status).toBe(304);

    const applied = await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    expect(applied.status).toBe(200);
    expect(applied.body.state).toBe("Applied");
    const now = await served(flag);
    expect(now.enabled).toBe(true);
    expect(
      (await as(alice, "GET", `${BASE}/change-requests/pending`)).body.map((r: { id: number }) => r.id),
    ).not.toContain(id);
    expect(await eventTypes(since)).toEqual([
      "change-request-created",
      "change-added",
      "change-request-sent-to-review",
      "change-request-approval-added",
      "change-request-approved",
      "feature-environment-enabled",
      "change-request-applied",
    ]);
    const enabled = await server.db
      .selectFrom("events")
      .selectAll()
      .where("type", "=", "feature-environment-enabled")
      .where("feature_name", "=", flag)
      .where("environment", "=", "production")
      .executeTakeFirstOrThrow();
    expect(enabled.created_by_user_id).toBe(alice.id);
    // Closed: nothing more happens to it.
    await refuse(alice, { state: "Cancelled" }, 409, "ConflictError");
  });

  it("collects a person's changes in one draft per environment; a later change to the same thing replaces the earlier", async () => {
    const flag = await newFlag();
    const first = await as(alice, "POST", `${PROD}/change-requests`, [
      { feature: flag, action: "updateEnabled", payload: { enabled: true } },
      { feature: flag, action: "addStrategy", payload: { name: "default", parameters: {}, constraints: [] } },
    ]);
    const second = await as(alice, "POST", `${PROD}/change-requests`, {
      feature: flag,
      action: "updateEnabled",
      payload: { enabled: false },
    });
    expect(second.body.id).toBe(first.body.id);
    expect(
      second.body.features[0].changes.map((c: { action: string; payload: unknown }) => [c.action, c.payload]),
    ).toEqual([
      ["updateEnabled", { enabled: false }],
      ["addStrategy", { name: "default", parameters: {}, constraints: [] }],
    ]);
    const bobs = await as(bob, "POST", `${PROD}/change-requests`, {
      feature: flag,
      action: "updateEnabled",
      payload: { enabled: true },
    });
    expect(bobs.body.id).not.toBe(first.body.id);

    const invalid = await as(alice, "POST", `${PROD}/change-requests`, {
      feature: flag,
      action: "addStrategy",
      payload: { parameters: {} },
    });
    expect(invalid.status).toBe(400);
    expect(
      (
        await as(alice, "POST", `${PROD}/change-requests`, {
          feature: "no-such-flag",
          action: "updateEnabled",
          payload: { enabled: true },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await as(viewer, "POST", `${PROD}/change-requests`, {
          feature: flag,
          action: "updateEnabled",
          payload: { enabled: true },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await as(alice, "POST", `${BASE}/environments/development/change-requests`, {
          feature: flag,
          action: "updateEnabled",
          payload: { enabled: true },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await server.request(`${PROD}/change-requests`, {
          method: "POST",
          body: { feature: flag, action: "updateEnabled", payload: { enabled: true } },
        })
      ).status,
    ).toBe(403);
    expect((await stateOf(first.body.id)).features[0].changes).toHaveLength(2);

    // A draft is discarded by its author only, and only while it is a draft.
    expect((await as(bob, "DELETE", `${BASE}/change-requests/${first.body.id}`)).status).toBe(403);
    expect((await as(alice, "DELETE", `${BASE}/change-requests/${first.body.id}`)).status).toBe(204);
    expect((await admin("GET", `${BASE}/change-requests/${first.body.id}`)).status).toBe(404);
    expect((await as(bob, "DELETE", `${BASE}/change-requests/${bobs.body.id}`)).status).toBe(204);
  });

  it("takes approvals away when a change in review is edited, and refuses to edit a scheduled request", async () => {
    const flag = await newFlag();
    await admin("PUT", `${PROD}/change-requests/config`, {
      changeRequestsEnabled: true,
      requiredApprovals: 2,
    });
    try {
      const id = await submitted(alice, {
        feature: flag,
        action: "updateEnabled",
        payload: { enabled: true },
      });
      const once = await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
      expect(once.body).toMatchObject({ state: "In review", minApprovals: 2 });
      expect(once.body.approvals).toHaveLength(1);
      const changeId = once.body.features[0].changes[0].id;
      const edited = await as(alice, "PUT", `${BASE}/change-requests/${id}/changes/${changeId}`, {
        feature: flag,
        action: "updateEnabled",
        payload: { enabled: false },
      });
      expect(edited.status).toBe(204);
      const after = await stateOf(id);
      expect(after).toMatchObject({ state: "In review", approvals: [] });
      expect(after.features[0].changes[0].payload).toEqual({ enabled: false });
      expect(
        (
          await as(bob, "PUT", `${BASE}/change-requests/${id}/changes/${changeId}`, {
            action: "updateEnabled",
            payload: { enabled: true },
          })
        ).status,
      ).toBe(403);

      // An admin may approve their own request; here two people approve, then it is scheduled.
      const admin2 = await personWith("Admin");
      await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
      const twice = await as(admin2, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
      expect(twice.body.state).toBe("Approved");
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled = await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, {
        state: "Scheduled",
        scheduledAt: at,
      });
      expect(scheduled.body).toMatchObject({
        state: "Scheduled",
        schedule: { scheduledAt: at, status: "pending" },
      });
      const before = await stateOf(id);
      const refused = await as(alice, "PUT", `${BASE}/change-requests/${id}/changes/${changeId}`, {
        action: "updateEnabled",
        payload: { enabled: true },
      });
      expect([refused.status, refused.body.name]).toEqual([409, "ConflictError"]);
      expect((await as(alice, "DELETE", `${BASE}/change-requests/${id}/changes/${changeId}`)).status).toBe(
        409,
      );
      expect(await stateOf(id)).toEqual(before);
      // Rejected by a reviewer, with a comment; it stays closed.
      const rejected = await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, {
        state: "Rejected",
        comment: "Not this week",
      });
      expect(rejected.body).toMatchObject({
        state: "Rejected",
        rejections: [{ createdBy: { id: bob.id } }],
        comments: [{ text: "Not this week" }],
      });
      expect(rejected.body.schedule).toBeUndefined();
    } finally {
      await admin("PUT", `${PROD}/change-requests/config`, {
        changeRequestsEnabled: true,
        requiredApprovals: 1,
      });
    }
  });

  it("applies every change or none, and says which one failed", async () => {
    const flag = await newFlag();
    const custom = `beta-${kind}`;
    expect((await admin("POST", "/api/admin/strategies", { name: custom, parameters: [] })).status).toBe(201);
    const id = await approved(alice, [
      { feature: flag, action: "addStrategy", payload: { name: "default", parameters: {}, constraints: [] } },
      { feature: flag, action: "addStrategy", payload: { name: custom, parameters: {}, constraints: [] } },
      { feature: flag, action: "updateEnabled", payload: { enabled: true } },
    ]);
    // Taken once the request is made: its author is then among the flag's collaborators.
    const before = (await admin("GET", `${BASE}/features/${flag}`)).body;
    // The strategy the second change names goes away before the request is applied.
    expect((await admin("DELETE", `/api/admin/strategies/${custom}`)).status).toBe(200);
    const since = await lastEventId();
    const failed = await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    expect(failed.status).toBe(400);
    expect(failed.body.message).toMatch(
      /^Change 2 of 3 \(addStrategy on checkout-\d+\) could not be applied, so none was: .*no strategy called beta-/,
    );
    expect((await admin("GET", `${BASE}/features/${flag}`)).body).toEqual(before);
    expect((await stateOf(id)).state).toBe("Approved");
    expect(await eventTypes(since)).toEqual([]);
  });

  it("marks a change whose target changed since as a conflict, which only an edit (and a fresh review) clears", async () => {
    const flag = await newFlag();
    const strategy = (await admin("GET", `${BASE}/features/${flag}/environments/production/strategies`))
      .body[0];
    const update = {
      feature: flag,
      action: "updateStrategy",
      payload: { ...strategy, parameters: { ...strategy.parameters, rollout: "80" } },
    };
    const id = await approved(alice, update);
    // An admin changes the strategy directly meanwhile (admins may skip change requests).
    await admin("PUT", `${BASE}/features/${flag}/environments/production/strategies/${strategy.id}`, {
      ...strategy,
      parameters: { ...strategy.parameters, rollout: "10" },
    });
    const seen = await stateOf(id);
    expect(seen.features[0].changes[0].conflict).toBe(
      "The strategy has been changed since this change was made.",
    );
    const refused = await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    expect([refused.status, refused.body.name]).toEqual([409, "ConflictError"]);
    expect(refused.body.message).toContain("conflicts");

    await as(alice, "PUT", `${BASE}/change-requests/${id}/changes/${seen.features[0].changes[0].id}`, update);
    const fresh = await stateOf(id);
    expect(fresh.state).toBe("In review");
    expect(fresh.features[0].changes[0].conflict).toBeUndefined();
    await as(bob, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" });
    expect((await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" })).status).toBe(
      200,
    );
    const strategies = (await admin("GET", `${BASE}/features/${flag}/environments/production/strategies`))
      .body;
    expect(strategies[0].parameters.rollout).toBe("80");
  });

  it("refuses segment changes that reach an environment requiring change requests", async () => {
    const flag = await newFlag();
    // A change request changes its own project's segments only.
    const segment = await admin("POST", "/api/admin/segments", {
      name: `eu-${kind}`,
      project: "default",
      constraints: [],
    });
    const strategy = (await admin("GET", `${BASE}/features/${flag}/environments/production/strategies`))
      .body[0];
    await admin("PUT", `${BASE}/features/${flag}/environments/production/strategies/${strategy.id}`, {
      ...strategy,
      segments: [segment.body.id],
    });
    const change = {
      name: `eu-${kind}`,
      project: "default",
      constraints: [{ contextName: "region", operator: "IN", values: ["eu"] }],
    };
    const refused = await as(alice, "PUT", `/api/admin/segments/${segment.body.id}`, change);
    expect([refused.status, refused.body.name]).toEqual([403, "NoAccessError"]);
    const id = await approved(alice, {
      action: "updateSegment",
      payload: { id: segment.body.id, ...change },
    });
    expect((await stateOf(id)).segments[0]).toMatchObject({ name: `eu-${kind}`, action: "updateSegment" });
    expect((await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" })).status).toBe(
      200,
    );
    expect((await admin("GET", `/api/admin/segments/${segment.body.id}`)).body.constraints[0].values).toEqual(
      ["eu"],
    );
  });

  it("applies a scheduled request when it falls due, and not before", async () => {
    const flag = await newFlag();
    const id = await approved(alice, { feature: flag, action: "updateEnabled", payload: { enabled: true } });
    // An hour ahead, so that the scheduler's timer leaves it alone however slow this machine
    // is: the test applies what is due at the times it picks, a moment before and then at it.
    const at = new Date(Date.now() + 3_600_000);
    await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, {
      state: "Scheduled",
      scheduledAt: at.toISOString(),
    });
    const applyDue = async (now: Date) => {
      while (await server.services.changeRequests.schedules.applyDue(now)) {}
    };
    await applyDue(new Date(at.getTime() - 1));
    expect(await stateOf(id)).toMatchObject({ state: "Scheduled", schedule: { status: "pending" } });
    expect((await served(flag)).enabled).toBe(false);
    await applyDue(at);
    expect((await stateOf(id)).state).toBe("Applied");
    expect((await served(flag)).enabled).toBe(true);
    expect((await scheduledSuccess(id)).created_by_user_id).toBe(alice.id);
  });

  it("applies a schedule by itself once it falls due, never before", async () => {
    const flag = await newFlag();
    const id = await approved(alice, { feature: flag, action: "updateEnabled", payload: { enabled: true } });
    const at = new Date(Date.now() + 300);
    await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, {
      state: "Scheduled",
      scheduledAt: at.toISOString(),
    });
    await until(
      () => stateOf(id),
      (request) => request.state === "Applied",
    );
    expect((await served(flag)).enabled).toBe(true);
    expect((await scheduledSuccess(id)).created_at.getTime()).toBeGreaterThanOrEqual(at.getTime());
  });

  it("suspends a schedule whose flag is archived, and fails one that cannot apply, each with its reason and event", async () => {
    const archivedFlag = await newFlag();
    const suspended = await approved(alice, {
      feature: archivedFlag,
      action: "updateEnabled",
      payload: { enabled: true },
    });
    await as(alice, "PUT", `${BASE}/change-requests/${suspended}/state`, {
      state: "Scheduled",
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await admin("DELETE", `${BASE}/features/${archivedFlag}`)).status).toBe(202);
    const paused = await until(
      () => stateOf(suspended),
      (request) => request.schedule?.status === "suspended",
    );
    expect(paused).toMatchObject({
      state: "Scheduled",
      schedule: { status: "suspended", reason: `${archivedFlag}: The flag has been archived.` },
      features: [{ conflict: "The flag has been archived." }],
    });

    const flag = await newFlag();
    const custom = `gone-${kind}`;
    await admin("POST", "/api/admin/strategies", { name: custom, parameters: [] });
    const failing = await approved(alice, {
      feature: flag,
      action: "addStrategy",
      payload: { name: custom, parameters: {}, constraints: [] },
    });
    await admin("DELETE", `/api/admin/strategies/${custom}`);
    await as(alice, "PUT", `${BASE}/change-requests/${failing}/state`, {
      state: "Scheduled",
      scheduledAt: new Date(Date.now() + 500).toISOString(),
    });
    const failed = await until(
      () => stateOf(failing),
      (request) => request.schedule?.status === "failed",
    );
    expect(failed.state).toBe("Scheduled");
    expect(failed.schedule.reason).toMatch(
      /^Change 1 of 1 \(addStrategy on checkout-\d+\) could not be applied/,
    );
    const types = await server.db
      .selectFrom("events")
      .select("type")
      .where("type", "in", [
        "change-request-schedule-suspended",
        "change-request-scheduled-application-failure",
      ])
      .where((eb) =>
        eb.or([
          eb("data", "@>", JSON.stringify({ changeRequestId: suspended })),
          eb("data", "@>", JSON.stringify({ changeRequestId: failing })),
        ]),
      )
      .orderBy("id")
      .execute();
    expect(types.map((event) => event.type)).toEqual([
      "change-request-schedule-suspended",
      "change-request-scheduled-application-failure",
    ]);
    // Rescheduling or applying now is still allowed; applying now says why it cannot.
    expect(
      (await as(alice, "PUT", `${BASE}/change-requests/${failing}/state`, { state: "Applied" })).status,
    ).toBe(400);
  });

  it("suspends a schedule whose scheduler is deleted, with its reason and event, and leaves the flag", async () => {
    const flag = await newFlag();
    const id = await approved(alice, { feature: flag, action: "updateEnabled", payload: { enabled: true } });
    const carol = await personWith("Editor");
    const scheduled = await as(carol, "PUT", `${BASE}/change-requests/${id}/state`, {
      state: "Scheduled",
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(scheduled.body.schedule).toMatchObject({ status: "pending" });
    const since = await lastEventId();
    expect((await admin("DELETE", `/api/admin/user-admin/${carol.id}`)).status).toBe(200);
    const paused = await until(
      () => stateOf(id),
      (request) => request.schedule?.status === "suspended",
    );
    expect(paused).toMatchObject({
      state: "Scheduled",
      schedule: { status: "suspended", reason: "The user who scheduled it has been deleted." },
    });
    expect(await eventTypes(since)).toContain("change-request-schedule-suspended");
    expect((await served(flag)).enabled).toBe(false);
  });

  it("lists whom an author may ask to review: the people who may approve in that environment", async () => {
    const reply = await as(alice, "GET", `${BASE}/change-requests/available-reviewers/production`);
    expect(reply.status).toBe(200);
    const ids = reply.body.reviewers.map((reviewer: { id: number }) => reviewer.id);
    expect(ids).toEqual(expect.arrayContaining([alice.id, bob.id]));
    expect(ids).not.toContain(viewer.id);
    // Those without a name or an email leave them out rather than send nulls.
    expect(reply.body.reviewers.find((reviewer: { id: number }) => reviewer.id === bob.id)).toEqual({
      id: bob.id,
      username: expect.stringMatching(/^person-/),
    });
    const unknown = await as(alice, "GET", `${BASE}/change-requests/available-reviewers/nowhere`);
    expect(unknown.status).toBe(404);
  });

  it("lets a custom role that only applies apply what others wrote and approved", async () => {
    const role = await admin("POST", "/api/admin/roles", {
      name: `Release manager ${kind}`,
      type: "custom",
      permissions: [{ name: "APPLY_CHANGE_REQUEST", environment: "production" }],
    });
    expect(role.status).toBe(201);
    const carol = await personWith("Viewer");
    const given = await admin("POST", `${BASE}/access`, {
      roles: [role.body.id],
      users: [carol.id],
      groups: [],
    });
    expect(given.status).toBe(200);
    const flag = await newFlag();
    const variants = [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default" }];
    const id = await approved(alice, { feature: flag, action: "patchVariant", payload: { variants } });
    expect(
      (await as(carol, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Approved" })).status,
    ).toBe(403);
    const applied = await as(carol, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Applied" });
    expect(applied.body).toMatchObject({ state: "Applied" });
    const now = await admin("GET", `${BASE}/features/${flag}/environments/production/variants`);
    expect(now.body.variants).toMatchObject([{ name: "blue", weight: 1000 }]);
  });

  it("lists and searches requests, and counts those awaiting a person's review", async () => {
    const flag = await newFlag();
    const id = await submitted(alice, { feature: flag, action: "updateEnabled", payload: { enabled: true } });
    const mine = await as(bob, "GET", "/api/admin/search/change-requests?awaitingMyReview=true");
    expect(mine.body.changeRequests.map((r: { id: number }) => r.id)).toContain(id);
    const theirs = await as(alice, "GET", "/api/admin/search/change-requests?awaitingMyReview=true");
    expect(theirs.body.changeRequests.map((r: { id: number }) => r.id)).not.toContain(id);
    const open = await admin("GET", `/api/admin/search/change-requests?state=open&createdBy=${alice.id}`);
    expect(open.body.changeRequests.find((r: { id: number }) => r.id === id)).toMatchObject({
      title: `Change request #${id}`,
      state: "In review",
      features: [flag],
      approvals: 0,
      minApprovals: 1,
    });
    expect((await admin("GET", `${BASE}/change-requests`)).body.map((r: { id: number }) => r.id)).toContain(
      id,
    );
    await as(alice, "PUT", `${BASE}/change-requests/${id}/title`, { title: "Launch checkout" });
    await as(bob, "POST", `${BASE}/change-requests/${id}/comments`, { text: "Looks good" });
    await as(alice, "PUT", `${BASE}/change-requests/${id}/approvers`, { reviewers: [bob.id] });
    const detail = await stateOf(id);
    expect(detail).toMatchObject({
      title: "Launch checkout",
      comments: [{ text: "Looks good", createdBy: { username: expect.any(String) } }],
      reviewers: [{ id: bob.id }],
    });
    const asked = await admin("GET", `/api/admin/search/change-requests?requestedApproverId=${bob.id}`);
    expect(asked.body.changeRequests.map((r: { id: number }) => r.id)).toEqual([id]);
    const cancelled = await as(alice, "PUT", `${BASE}/change-requests/${id}/state`, { state: "Cancelled" });
    expect(cancelled.body.state).toBe("Cancelled");
  });
});

/**
 * On a service of its own: change requests required in production, a flag, and a request
 * to switch it on there that one Editor wrote and another approved, scheduled for `at`.
 */
async function scheduleLaunch(server: TestServer, flag: string, at: Date): Promise<number> {
  const people = [
    await createUser(server, { rootRole: "Editor" }),
    await createUser(server, { rootRole: "Editor" }),
  ];
  const [alice, bob] = await Promise.all(people.map((user) => login(server, user.username, user.password)));
  const as = (cookie: string, path: string, body: unknown, method = "PUT") =>
    server.request(path, { method, body, token: null, headers: { cookie } });
  await server.request(`${PROD}/change-requests/config`, {
    method: "PUT",
    body: { changeRequestsEnabled: true },
  });
  await server.request(`${BASE}/features`, { method: "POST", body: { name: flag } });
  const draft = await as(
    alice!,
    `${PROD}/change-requests`,
    { feature: flag, action: "updateEnabled", payload: { enabled: true } },
    "POST",
  );
  const id = draft.body.id;
  await as(alice!, `${BASE}/change-requests/${id}/state`, { state: "In review" });
  await as(bob!, `${BASE}/change-requests/${id}/state`, { state: "Approved" });
  const scheduled = await as(alice!, `${BASE}/change-requests/${id}/state`, {
    state: "Scheduled",
    scheduledAt: at.toISOString(),
  });
  expect(scheduled.body.state).toBe("Scheduled");
  return id;
}

const SCHEDULE_OUTCOMES = [
  "change-request-scheduled-application-success",
  "change-request-scheduled-application-failure",
  "change-request-schedule-suspended",
];

/**
 * How the scheduler settled the request's schedule (the event it recorded), once it has:
 * looked up when the server hears of a commit, not on a clock, so that no load makes the
 * wait end too early, and a schedule that failed is an answer rather than a hang.
 */
function settled(server: TestServer, id: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () =>
      server.db
        .selectFrom("events")
        .select("type")
        .where("type", "in", SCHEDULE_OUTCOMES)
        .where("data", "@>", JSON.stringify({ changeRequestId: id }))
        .executeTakeFirst()
        .then((event) => event && resolve(event.type), reject);
    server.services.events.onRevision(look);
    // It may have been settled before this listened.
    void look();
  });
}

// Each of these starts two services: on a loaded machine that alone can take half a minute,
// so the bound is only there to end a run that hangs.
const STARTS_TWO = { timeout: 300_000 };

describe("the change request scheduler across a restart", STARTS_TWO, () => {
  it("applies a schedule that fell due while the service was down, as soon as it is back", async () => {
    const database = await freshDatabase("pglite");
    try {
      let server = await startTestServer("pglite", database);
      const token = await server.request("/api/admin/api-tokens", {
        method: "POST",
        body: { tokenName: "prod", type: "client", environment: "production", projects: ["*"] },
      });
      const served = async () =>
        (await server.request("/api/client/features", { token: token.body.secret })).body.features.find(
          (flag: { name: string }) => flag.name === "late-launch",
        );
      // An hour ahead: it cannot fall due while this service is up, however slow the machine.
      const id = await scheduleLaunch(server, "late-launch", new Date(Date.now() + 3_600_000));
      expect((await served()).enabled).toBe(false);
      await server.close();

      // The hour passes while the service is down.
      await database.db
        .updateTable("change_request_schedules")
        .set({ scheduled_at: new Date(Date.now() - 60_000) })
        .where("change_request_id", "=", id)
        .execute();
      server = await startTestServer("pglite", database);
      try {
        expect(await settled(server, id)).toBe("change-request-scheduled-application-success");
        expect((await server.request(`${BASE}/change-requests/${id}`)).body.state).toBe("Applied");
        expect((await served()).enabled).toBe(true);
      } finally {
        await server.close();
      }
    } finally {
      await database.close();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)(
  "the change request scheduler on instances sharing one database",
  STARTS_TWO,
  () => {
    it("applies a schedule once, however many instances are running", async () => {
      const database = await freshDatabase("postgres");
      const instances = [
        await startTestServer("postgres", database),
        await startTestServer("postgres", database),
      ];
      try {
        const first = instances[0]!;
        const id = await scheduleLaunch(first, "shared-launch", new Date(Date.now() + 1000));
        expect(await settled(first, id)).toBe("change-request-scheduled-application-success");
        // Both instances had the schedule in view; let the slower one look too.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const events = await first.db
          .selectFrom("events")
          .select("type")
          .where("type", "in", [
            "change-request-applied",
            "feature-environment-enabled",
            "feature-strategy-add",
          ])
          .where("environment", "=", "production")
          .orderBy("id")
          .execute();
        expect(events.map((event) => event.type)).toEqual([
          "feature-strategy-add",
          "feature-environment-enabled",
          "change-request-applied",
        ]);
      } finally {
        for (const instance of instances) await instance.close();
        await database.close();
      }
    });
  },
);
