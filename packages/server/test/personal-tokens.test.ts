import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { latestEvent } from "./support/fixtures.js";
import { createUser, login, type RootRole } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

const inADay = () => new Date(Date.now() + 86_400_000).toISOString();
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

interface Person {
  id: number;
  username: string;
  /** Their session: tokens are made from a login only. */
  cookie: string;
  /** A personal access token of theirs, for acting as them over HTTP. */
  token: string;
}

/** Creates a token for the person from their session, as the admin UI does. */
const mint = (server: TestServer, who: Pick<Person, "cookie">, body: unknown) =>
  server.request("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie: who.cookie },
    body,
  });

/** A user who logs in and, with that session, makes a first token described "first". */
async function person(server: TestServer, username: string, rootRole: RootRole): Promise<Person> {
  const user = await createUser(server, { rootRole, username });
  const cookie = await login(server, user.username, user.password);
  const created = await mint(server, { cookie }, { description: "first", expiresAt: inADay() });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: user.id, username, cookie, token: created.body.secret };
}

describe.each(databaseKinds)("personal access tokens (%s)", (kind) => {
  let server: TestServer;
  let editor: Person;
  let viewer: Person;
  beforeAll(async () => {
    server = await startTestServer(kind);
    editor = await person(server, "edith", "Editor");
    viewer = await person(server, "victor", "Viewer");
  });
  afterAll(() => server.close());

  const as = (who: Person | string, path: string, options: { method?: string; body?: unknown } = {}) =>
    server.request(path, { ...options, token: typeof who === "string" ? who : who.token });

  it("creates a token for the caller whose secret is shown once and stored only as its hash", async () => {
    const expiresAt = inADay();
    const created = await mint(server, editor, { description: "deploy script", expiresAt });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      secret: expect.stringMatching(/^user:[0-9a-f]{56}$/),
      description: "deploy script",
      userId: editor.id,
      createdAt: expect.any(String),
      expiresAt,
      seenAt: null,
    });
    expect(created.headers.get("location")).toBe(`tokens/${created.body.id}`);

    const stored = await server.db.selectFrom("personal_access_tokens").selectAll().execute();
    expect(stored.find((row) => row.id === created.body.id)?.secret_hash).toBe(sha256(created.body.secret));
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice(5, 20));

    const listed = await as(editor, "/api/admin/user/tokens");
    expect(listed.status).toBe(200);
    const { secret: _secret, ...shown } = created.body;
    expect(listed.body.pats.find((pat: { id: number }) => pat.id === created.body.id)).toEqual(shown);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    // Only the caller's own.
    expect(listed.body.pats.every((pat: { userId: number }) => pat.userId === editor.id)).toBe(true);

    const event = await latestEvent(server, "pat-created");
    expect(event).toMatchObject({
      createdBy: "edith",
      createdByUserId: editor.id,
      data: { id: created.body.id, description: "deploy script", expiresAt, userId: editor.id },
    });
    expect(JSON.stringify(event)).not.toContain(created.body.secret);
  });

  it("acts with exactly its user's permissions, as its user", async () => {
    const me = await as(editor, "/api/admin/user");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: editor.id, username: "edith" });

    const refused = await as(viewer, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "viewer-flag" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.name).toBe("NoAccessError");
    expect((await as(viewer, "/api/admin/projects")).status).toBe(200);

    const made = await as(editor, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "editor-flag" },
    });
    expect(made.status).toBe(200);
    expect(await latestEvent(server, "feature-created")).toMatchObject({
      featureName: "editor-flag",
      createdBy: "edith",
      createdByUserId: editor.id,
    });
  });

  it("records when a token was last used, off the request path", async () => {
    const fresh = await mint(server, viewer, { description: "seen", expiresAt: inADay() });
    const seenAt = async () =>
      (await as(viewer, "/api/admin/user/tokens")).body.pats.find(
        (pat: { id: number }) => pat.id === fresh.body.id,
      ).seenAt;
    await server.services.personalTokens.flushSeen();
    expect(await seenAt()).toBeNull();
    expect((await as(fresh.body.secret, "/api/admin/projects")).status).toBe(200);
    expect(await seenAt()).toBeNull();
    await server.services.personalTokens.flushSeen();
    expect(await seenAt()).toEqual(expect.any(String));
  });

  it("stops working at once when deleted, and when it expires", async () => {
    const created = await mint(server, editor, { description: "short-lived", expiresAt: inADay() });
    const secret = created.body.secret;
    expect((await as(secret, "/api/admin/projects")).status).toBe(200);

    // Another user's token is not theirs to delete, nor to know of.
    const foreign = await as(viewer, `/api/admin/user/tokens/${created.body.id}`, { method: "DELETE" });
    expect(foreign.status).toBe(404);
    expect((await as(secret, "/api/admin/projects")).status).toBe(200);

    const removed = await as(editor, `/api/admin/user/tokens/${created.body.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    const rejected = await as(secret, "/api/admin/projects");
    expect(rejected.status).toBe(401);
    expect(rejected.body.name).toBe("AuthenticationRequired");
    expect((await latestEvent(server, "pat-deleted")).preData).toMatchObject({
      id: created.body.id,
      userId: editor.id,
    });
    expect((await as(editor, `/api/admin/user/tokens/${created.body.id}`, { method: "DELETE" })).status).toBe(
      404,
    );

    const expiring = await mint(server, editor, { description: "expiring", expiresAt: inADay() });
    expect((await as(expiring.body.secret, "/api/admin/projects")).status).toBe(200);
    await server.db
      .updateTable("personal_access_tokens")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", expiring.body.id)
      .execute();
    expect((await as(expiring.body.secret, "/api/admin/projects")).status).toBe(401);
  });

  it("stops working while its user is deactivated, and for good once the user is deleted", async () => {
    const someone = await person(server, "dora", "Editor");
    const user = `/api/admin/user-admin/${someone.id}`;
    expect((await as(someone, "/api/admin/projects")).status).toBe(200);
    expect((await server.request(user, { method: "PUT", body: { isActive: false } })).status).toBe(200);
    expect((await as(someone, "/api/admin/projects")).status).toBe(401);
    expect((await server.request(user, { method: "PUT", body: { isActive: true } })).status).toBe(200);
    expect((await as(someone, "/api/admin/projects")).status).toBe(200);
    expect((await server.request(user, { method: "DELETE" })).status).toBe(200);
    expect((await as(someone, "/api/admin/projects")).status).toBe(401);
    const left = await server.db
      .selectFrom("personal_access_tokens")
      .select("id")
      .where("user_id", "=", someone.id)
      .execute();
    expect(left).toEqual([]);
  });

  it("refuses empty descriptions, past or missing expiry, duplicates and an eleventh token", async () => {
    const lister = await person(server, "lisa", "Viewer");
    const create = (body: unknown) => mint(server, lister, body);

    const empty = await create({ description: "", expiresAt: inADay() });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({
      name: "ValidationError",
      message: "PAT description cannot be empty.",
    });
    const past = await create({ description: "old", expiresAt: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.message).toBe("The expiry date should be in future.");
    expect((await create({ description: "no expiry" })).status).toBe(400);
    expect((await create({ description: "bad date", expiresAt: "tomorrow" })).status).toBe(400);

    const duplicate = await create({ description: "first", expiresAt: inADay() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({
      name: "NameExistsError",
      message: "PAT description already exists.",
    });

    // The first was made at login; nine more reach the limit of ten.
    for (let n = 2; n <= 10; n++) {
      expect((await create({ description: `t${n}`, expiresAt: inADay() })).status).toBe(201);
    }
    const eleventh = await create({ description: "t11", expiresAt: inADay() });
    expect(eleventh.status).toBe(403);
    expect(eleventh.body).toMatchObject({
      name: "NoAccessError",
      message: "Too many PATs (10) already exist for this user.",
    });
    expect((await as(lister, "/api/admin/user/tokens")).body.pats).toHaveLength(10);
  });

  it("refuses an API token, which belongs to no user", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/admin/user/tokens", undefined],
      ["POST", "/api/admin/user/tokens", { description: "admin's", expiresAt: inADay() }],
      ["DELETE", "/api/admin/user/tokens/1", undefined],
    ] as const) {
      const reply = await server.request(path, { method, body });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.name).toBe("NoAccessError");
      expect(reply.body.message).toContain("personal access token, which belongs to a user");
    }
  });

  it("are made from a login only: a token cannot make tokens, but lists and deletes its user's", async () => {
    const minted = await as(editor, "/api/admin/user/tokens", {
      method: "POST",
      body: { description: "made by a token", expiresAt: "2099-01-01T00:00:00.000Z" },
    });
    expect(minted.status).toBe(403);
    expect(minted.body.name).toBe("NoAccessError");
    expect(minted.body.message).toContain("log in");
    const made = await server.db
      .selectFrom("personal_access_tokens")
      .select("id")
      .where("description", "=", "made by a token")
      .execute();
    expect(made).toEqual([]);

    const spare = await mint(server, editor, { description: "spare", expiresAt: inADay() });
    expect(spare.status).toBe(201);
    const listed = await as(editor, "/api/admin/user/tokens");
    expect(listed.status).toBe(200);
    expect(listed.body.pats.map((pat: { id: number }) => pat.id)).toContain(spare.body.id);
    expect((await as(editor, `/api/admin/user/tokens/${spare.body.id}`, { method: "DELETE" })).status).toBe(
      200,
    );
    expect((await as(spare.body.secret, "/api/admin/projects")).status).toBe(401);
  });

  describe("of service accounts", () => {
    it("are given and taken by admins, and act as the account", async () => {
      const account = await server.request("/api/admin/service-account", {
        method: "POST",
        body: { username: "ci-bot", rootRole: "Editor" },
      });
      expect(account.status).toBe(201);
      const base = `/api/admin/service-account/${account.body.id}/token`;
      const created = await server.request(base, {
        method: "POST",
        body: { description: "pipeline", expiresAt: inADay() },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        userId: account.body.id,
        secret: expect.stringMatching(/^user:[0-9a-f]{56}$/),
      });
      expect(created.headers.get("location")).toBe(`token/${created.body.id}`);
      expect((await latestEvent(server, "pat-created")).data.userId).toBe(account.body.id);

      const listed = await server.request(base);
      expect(listed.status).toBe(200);
      expect(listed.body.pats.map((pat: { description: string }) => pat.description)).toEqual(["pipeline"]);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

      const flag = await as(created.body.secret, "/api/admin/projects/default/features", {
        method: "POST",
        body: { name: "bot-flag" },
      });
      expect(flag.status).toBe(200);
      expect((await latestEvent(server, "feature-created")).createdByUserId).toBe(account.body.id);

      const removed = await server.request(`${base}/${created.body.id}`, { method: "DELETE" });
      expect(removed.status).toBe(200);
      expect((await as(created.body.secret, "/api/admin/projects")).status).toBe(401);
      expect((await server.request(`${base}/${created.body.id}`, { method: "DELETE" })).status).toBe(404);
      // A person's token is not reached through a service account's path.
      const first = (await as(editor, "/api/admin/user/tokens")).body.pats[0];
      expect((await server.request(`${base}/${first.id}`, { method: "DELETE" })).status).toBe(404);
    });

    it("exist only for service accounts, and only admins handle them", async () => {
      const body = { description: "x", expiresAt: inADay() };
      for (const id of [editor.id, 999_999]) {
        const reply = await server.request(`/api/admin/service-account/${id}/token`, {
          method: "POST",
          body,
        });
        expect(reply.status).toBe(404);
        expect((await server.request(`/api/admin/service-account/${id}/token`)).status).toBe(404);
      }
      const refused = await as(editor, `/api/admin/service-account/${editor.id}/token`);
      expect(refused.status).toBe(403);
      expect(refused.body.name).toBe("NoAccessError");
    });
  });
});
