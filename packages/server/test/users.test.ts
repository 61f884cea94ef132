import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config.js";
import { startServer } from "../src/server.js";
import { databaseKinds } from "./support/database.js";
import { latestEvent } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

const asSession = (cookie: string) => ({ token: null, headers: { cookie } });

const loginAs = (url: string, username: string, password: string) =>
  fetch(`${url}/auth/simple/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });

describe.each(databaseKinds)("users (%s)", (kind) => {
  let server: TestServer;
  let admin: { id: number; cookie: string };
  beforeAll(async () => {
    server = await startTestServer(kind);
    const created = await createUser(server, { rootRole: "Admin", username: "root" });
    admin = { id: created.id, cookie: await login(server, created.username, created.password) };
  });
  afterAll(() => server.close());

  it("describes the current user and what they may do", async () => {
    const editor = await createUser(server, { rootRole: "Editor", name: "Edith" });
    const me = await server.request(
      "/api/admin/user",
      asSession(await login(server, editor.username, editor.password)),
    );
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      id: editor.id,
      name: "Edith",
      username: editor.username,
      rootRole: 2,
      accountType: "User",
      isActive: true,
    });
    expect(me.body.user).not.toHaveProperty("isAPI");
    expect(me.body.feedback).toEqual([]);
    expect(me.body.splash).toEqual({});
    const permissions = me.body.permissions as {
      permission: string;
      project?: string;
      environment?: string;
    }[];
    expect(permissions).toContainEqual({ permission: "CREATE_PROJECT" });
    expect(permissions).toContainEqual({ permission: "CREATE_FEATURE", project: "default" });
    expect(permissions).toContainEqual({
      permission: "UPDATE_FEATURE_ENVIRONMENT",
      project: "default",
      environment: "production",
    });
    expect(permissions).not.toContainEqual({ permission: "ADMIN" });

    const adminMe = await server.request("/api/admin/user", asSession(admin.cookie));
    expect(adminMe.body.permissions).toEqual([{ permission: "ADMIN" }]);

    // An API token is no person.
    const byToken = await server.request("/api/admin/user");
    expect(byToken.status).toBe(403);
    expect(byToken.body.name).toBe("NoAccessError");
    expect(byToken.body.message).toMatch(/person/);
  });

  it("gives the caller their root role by name and the projects they are a member of", async () => {
    const viewer = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, viewer.username, viewer.password);
    const before = await server.request("/api/admin/user/profile", asSession(cookie));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      rootRole: { id: 3, type: "root", name: "Viewer", description: expect.any(String) },
      projects: [],
    });
    const given = await server.request("/api/admin/projects/default/access", {
      method: "POST",
      body: { roles: [5], users: [viewer.id], groups: [] },
    });
    expect(given.status).toBeLessThan(300);
    expect((await server.request("/api/admin/user/profile", asSession(cookie))).body.projects).toEqual([
      "default",
    ]);
    expect((await server.request("/api/admin/user/profile")).status).toBe(403);
  });

  it("checks passwords against the policy, naming every rule broken", async () => {
    const check = (password: string) =>
      server.request("/api/admin/user-admin/validate-password", { method: "POST", body: { password } });
    const weak = await check("abc");
    expect(weak.status).toBe(400);
    expect(weak.body.name).toBe("OwaspValidationError");
    for (const rule of ["10 characters", "uppercase", "number", "symbol"])
      expect(weak.body.message).toContain(rule);
    expect(weak.body.message).not.toContain("lowercase");
    expect(weak.body.details).toHaveLength(4);

    expect((await check("Paaas-word-1")).body.message).toContain("three or more times in a row");
    expect((await check(`Aa1-${"x".repeat(130)}`)).body.message).toContain("at most 128");
    expect((await check("Correct-horse-9")).status).toBe(200);
    // A long passphrase needs no particular kinds of character, as in the reference.
    expect((await check("correct horse battery staple")).status).toBe(200);

    // Creating a user and setting a password apply the same policy, and store nothing when refused.
    const refused = await server.request("/api/admin/user-admin", {
      method: "POST",
      body: { username: "weakling", password: "password", rootRole: "Viewer" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.name).toBe("OwaspValidationError");
    const users = (await server.request("/api/admin/user-admin")).body.users as { username: string }[];
    expect(users.map((user) => user.username)).not.toContain("weakling");
  });

  it("creates, changes and deletes users, recording each change without a password", async () => {
    const created = await server.request("/api/admin/user-admin", {
      method: "POST",
      body: { email: "grace@example.com", name: "Grace", rootRole: "Editor", sendEmail: false },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.headers.get("location")).toBe(`user-admin/${id}`);
    expect(created.body).toMatchObject({
      email: "grace@example.com",
      name: "Grace",
      username: null,
      rootRole: 2,
      accountType: "User",
      isActive: true,
      seenAt: null,
    });
    const createdEvent = await latestEvent(server, "user-created");
    expect(createdEvent).toMatchObject({
      createdBy: expect.any(String),
      data: { id, email: "grace@example.com", name: "Grace", rootRole: 2 },
    });

    const list = await server.request("/api/admin/user-admin");
    expect(list.body.users.map((user: { id: number }) => user.id)).toContain(id);
    expect(list.body.rootRoles.map((role: { name: string }) => role.name)).toEqual([
      "Admin",
      "Editor",
      "Viewer",
    ]);
    expect((await server.request(`/api/admin/user-admin/${id}`)).body).toEqual(created.body);

    const updated = await server.request(`/api/admin/user-admin/${id}`, {
      method: "PUT",
      body: { name: "Grace Hopper", rootRole: 3 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Grace Hopper", rootRole: 3 });
    expect(await latestEvent(server, "user-updated")).toMatchObject({
      preData: { name: "Grace", rootRole: 2 },
      data: { name: "Grace Hopper", rootRole: 3 },
    });

    expect((await server.request(`/api/admin/user-admin/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(`/api/admin/user-admin/${id}`)).status).toBe(404);
    expect((await latestEvent(server, "user-deleted")).preData).toMatchObject({
      id,
      email: "grace@example.com",
    });

    const events = await server.request("/api/admin/events/search", {
      method: "POST",
      body: { query: "grace" },
    });
    expect(JSON.stringify(events.body)).not.toMatch(/scrypt|password/i);
  });

  it("refuses duplicates, unknown root roles and users with neither username nor email", async () => {
    const post = (body: unknown) => server.request("/api/admin/user-admin", { method: "POST", body });
    expect((await post({ username: "dup", email: "dup@example.com", rootRole: "Viewer" })).status).toBe(201);
    for (const body of [
      { username: "DUP", rootRole: "Viewer" },
      { email: "Dup@Example.com", rootRole: "Viewer" },
      // One person's email may not be another's username: a login matches both.
      { username: "dup@example.com", rootRole: "Viewer" },
    ]) {
      const reply = await post(body);
      expect(reply.status, JSON.stringify(body)).toBe(409);
      expect(reply.body.name).toBe("NameExistsError");
    }
    const unknownRole = await post({ username: "norole", rootRole: "Owner" });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body.details[0].path).toBe("rootRole");
    expect((await post({ username: "norole", rootRole: 999 })).status).toBe(400);
    expect((await post({ name: "Nameless", rootRole: "Viewer" })).status).toBe(400);
    expect((await post({ email: "not an email", rootRole: "Viewer" })).status).toBe(400);
  });

  it("ends a user's sessions when they are deleted or deactivated", async () => {
    const deleted = await createUser(server, { rootRole: "Viewer" });
    const deletedCookie = await login(server, deleted.username, deleted.password);
    const deactivated = await createUser(server, { rootRole: "Viewer" });
    const deactivatedCookie = await login(server, deactivated.username, deactivated.password);
    expect((await server.request("/api/admin/user", asSession(deletedCookie))).status).toBe(200);

    await server.request(`/api/admin/user-admin/${deleted.id}`, { method: "DELETE" });
    expect((await server.request("/api/admin/user", asSession(deletedCookie))).status).toBe(401);

    const off = await server.request(`/api/admin/user-admin/${deactivated.id}`, {
      method: "PUT",
      body: { isActive: false },
    });
    expect(off.body.isActive).toBe(false);
    expect((await server.request("/api/admin/user", asSession(deactivatedCookie))).status).toBe(401);
    expect((await loginAs(server.url, deactivated.username, deactivated.password)).status).toBe(401);
    expect(await latestEvent(server, "user-updated")).toMatchObject({
      preData: { isActive: true },
      data: { isActive: false },
    });

    // Reactivated, they log in again; the old session stays ended.
    await server.request(`/api/admin/user-admin/${deactivated.id}`, {
      method: "PUT",
      body: { isActive: true },
    });
    expect((await loginAs(server.url, deactivated.username, deactivated.password)).status).toBe(200);
    expect((await server.request("/api/admin/user", asSession(deactivatedCookie))).status).toBe(401);
  });

  it("never leaves the instance without an active admin, and no admin removes themself", async () => {
    const self = await server.request(`/api/admin/user-admin/${admin.id}`, {
      method: "DELETE",
      ...asSession(admin.cookie),
    });
    expect(self.status).toBe(400);
    expect(self.body.message).toContain("yourself");
    for (const [method, body] of [
      ["DELETE", undefined],
      ["PUT", { rootRole: "Editor" }],
      ["PUT", { isActive: false }],
    ] as const) {
      const reply = await server.request(`/api/admin/user-admin/${admin.id}`, { method, body });
      expect(reply.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(reply.body.message).toContain("last active admin");
    }
    expect((await server.request(`/api/admin/user-admin/${admin.id}`)).body).toMatchObject({
      rootRole: 1,
      isActive: true,
    });

    const second = await createUser(server, { rootRole: "Admin" });
    const demoted = await server.request(`/api/admin/user-admin/${second.id}`, {
      method: "PUT",
      body: { rootRole: "Viewer" },
    });
    expect(demoted.status).toBe(200);
  });

  it("lets a user change their own password, proving the old one; their other sessions end", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    const current = await login(server, user.username, user.password);
    const elsewhere = await login(server, user.username, user.password);
    const change = (body: unknown) =>
      server.request("/api/admin/user/change-password", { method: "POST", body, ...asSession(current) });
    const next = "New-password-42";

    const wrongOld = await change({
      password: next,
      confirmPassword: next,
      oldPassword: "Not-the-password-1",
    });
    expect(wrongOld.status).toBe(401);
    expect(wrongOld.body.name).toBe("PasswordMismatch");
    expect(
      (await change({ password: next, confirmPassword: `${next}!`, oldPassword: user.password })).status,
    ).toBe(400);
    expect(
      (await change({ password: "weak", confirmPassword: "weak", oldPassword: user.password })).status,
    ).toBe(400);

    expect((await change({ password: next, confirmPassword: next, oldPassword: user.password })).status).toBe(
      200,
    );
    expect((await server.request("/api/admin/user", asSession(current))).status).toBe(200);
    expect((await server.request("/api/admin/user", asSession(elsewhere))).status).toBe(401);
    expect((await loginAs(server.url, user.username, user.password)).status).toBe(401);
    expect((await loginAs(server.url, user.username, next)).status).toBe(200);
  });

  it("ends every session when a user changes their password with a personal access token", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, user.username, user.password);
    const pat = await server.request("/api/admin/user/tokens", {
      method: "POST",
      ...asSession(cookie),
      body: { description: "script", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(pat.status).toBe(201);
    const next = "Changed-by-token-3";
    // The token acts, whatever cookie comes along: there is no session it changed the password from.
    const changed = await server.request("/api/admin/user/change-password", {
      method: "POST",
      token: pat.body.secret,
      headers: { cookie },
      body: { password: next, confirmPassword: next, oldPassword: user.password },
    });
    expect(changed.status).toBe(200);
    expect((await server.request("/api/admin/user", asSession(cookie))).status).toBe(401);
    // The token itself goes on: the user deletes it if it is the one they fear was seen.
    expect((await server.request("/api/admin/user", { token: pat.body.secret })).status).toBe(200);
  });

  it("lets an admin set a password, or hand out a reset link that works once", async () => {
    const user = await createUser(server, { rootRole: "Viewer", email: "lin@example.com", name: "Lin" });
    const session = await login(server, user.username, user.password);

    const set = await server.request(`/api/admin/user-admin/${user.id}/change-password`, {
      method: "POST",
      body: { password: "Admin-chosen-7" },
    });
    expect(set.status).toBe(200);
    expect((await server.request("/api/admin/user", asSession(session))).status).toBe(401);
    expect((await loginAs(server.url, user.username, "Admin-chosen-7")).status).toBe(200);

    const link = await server.request("/api/admin/user-admin/reset-password", {
      method: "POST",
      body: { id: "lin@example.com" },
    });
    expect(link.status).toBe(200);
    const url = new URL(link.body.resetPasswordUrl);
    const token = url.searchParams.get("token")!;
    const stored = await server.db.selectFrom("password_reset_tokens").select("token_hash").execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(token);

    const opened = await fetch(`${server.url}${url.pathname}${url.search}`);
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({
      id: user.id,
      name: "Lin",
      email: "lin@example.com",
      token,
      role: { id: 3, name: "Viewer" },
    });

    const reset = (password: string) =>
      server.request("/auth/reset/password", { method: "POST", token: null, body: { token, password } });
    expect((await reset("weak")).status).toBe(400);
    const beforeReset = await login(server, user.username, "Admin-chosen-7");
    expect((await reset("Reset-chosen-8")).status).toBe(200);
    expect((await server.request("/api/admin/user", asSession(beforeReset))).status).toBe(401);
    expect((await loginAs(server.url, user.username, "Reset-chosen-8")).status).toBe(200);
    const again = await reset("Another-one-9");
    expect(again.status).toBe(401);
    expect(again.body.name).toBe("InvalidTokenError");
    expect((await server.request(`/auth/reset/validate?token=${token}`, { token: null })).status).toBe(401);
    expect(
      (
        await server.request("/api/admin/user-admin/reset-password", {
          method: "POST",
          body: { id: "nobody" },
        })
      ).status,
    ).toBe(404);
  });

  it("gives a Viewer read access only, and an Editor flags in the default project", async () => {
    const viewer = await createUser(server, { rootRole: "Viewer" });
    const viewerCookie = await login(server, viewer.username, viewer.password);
    const refused = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "viewer-flag" },
      ...asSession(viewerCookie),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.name).toBe("NoAccessError");
    expect((await server.request("/api/admin/projects", asSession(viewerCookie))).status).toBe(200);
    // Managing users is the admins'.
    expect((await server.request("/api/admin/user-admin", asSession(viewerCookie))).status).toBe(403);

    const editor = await createUser(server, { rootRole: "Editor", username: "edna" });
    const made = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "editor-flag" },
      ...asSession(await login(server, editor.username, editor.password)),
    });
    expect(made.status).toBe(200);
    expect(await latestEvent(server, "feature-created")).toMatchObject({
      featureName: "editor-flag",
      createdBy: "edna",
      createdByUserId: editor.id,
    });
  });
});

describe("the first admin", () => {
  it("is made at start on a database without people, with a random password printed once", async () => {
    const printed = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    let line: string | undefined;
    try {
      const server = await startServer(
        loadConfig({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", DATA_DIR: "memory://" }),
      );
      line = printed.mock.calls.map(([text]) => String(text)).find((text) => text.includes("first admin"));
      printed.mockRestore();
      try {
        expect(line).toMatch(/log in at http:\/\/127\.0\.0\.1:\d+ as admin \/ \S+/);
        const password = /as admin \/ (\S+)/.exec(line!)![1]!;
        const reply = await loginAs(server.url, "admin", password);
        expect(reply.status).toBe(200);
        expect(await reply.json()).toMatchObject({ username: "admin", rootRole: 1 });
      } finally {
        await server.close();
      }
    } finally {
      printed.mockRestore();
    }
  });

  it("takes the reference's variables, both or neither; their password skips the policy", async () => {
    expect(() => loadConfig({ UNLEASH_DEFAULT_ADMIN_USERNAME: "boss" })).toThrow(
      /UNLEASH_DEFAULT_ADMIN_PASSWORD/,
    );
    const server = await startTestServer();
    try {
      const users = server.services.users;
      expect(await users.bootstrapAdmin({ username: "boss", password: "unleash4all" })).toBeUndefined();
      expect((await loginAs(server.url, "boss", "unleash4all")).status).toBe(200);
      // Once there is someone, nobody else is made, whatever the configuration says.
      expect(await users.bootstrapAdmin()).toBeUndefined();
      expect(await users.bootstrapAdmin({ username: "other", password: "unleash4all" })).toBeUndefined();
      const people = (await server.request("/api/admin/user-admin")).body.users as { username: string }[];
      expect(people.map((person) => person.username)).toEqual(["boss"]);
      expect(await latestEvent(server, "user-created")).toMatchObject({
        createdBy: "system",
        data: { username: "boss", rootRole: 1 },
      });
    } finally {
      await server.close();
    }
  });
});
