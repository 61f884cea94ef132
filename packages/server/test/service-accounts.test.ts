import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { latestEvent } from "./support/fixtures.js";
import { sessionOf } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("service accounts (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("are created, changed and deleted by admins, recording each change", async () => {
    const created = await server.request("/api/admin/service-account", {
      method: "POST",
      body: { username: "deployer", name: "Deploy bot", rootRole: "Editor" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.headers.get("location")).toBe(`service-account/${id}`);
    expect(created.body).toMatchObject({
      username: "deployer",
      name: "Deploy bot",
      rootRole: 2,
      accountType: "Service Account",
    });
    expect((await latestEvent(server, "service-account-created")).data).toMatchObject({
      id,
      username: "deployer",
      rootRole: 2,
    });

    const list = await server.request("/api/admin/service-account");
    expect(list.status).toBe(200);
    expect(list.body.serviceAccounts).toEqual([created.body]);
    expect(list.body.rootRoles.map((role: { id: number }) => role.id)).toEqual([1, 2, 3]);
    // They are not people: the user-admin API does not show or touch them.
    const people = (await server.request("/api/admin/user-admin")).body.users as { id: number }[];
    expect(people.map((person) => person.id)).not.toContain(id);
    expect((await server.request(`/api/admin/user-admin/${id}`)).status).toBe(404);
    expect((await server.request(`/api/admin/user-admin/${id}`, { method: "DELETE" })).status).toBe(404);

    const updated = await server.request(`/api/admin/service-account/${id}`, {
      method: "PUT",
      body: { name: "Release bot", rootRole: "Viewer" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Release bot", rootRole: 3 });
    expect(await latestEvent(server, "service-account-updated")).toMatchObject({
      preData: { name: "Deploy bot", rootRole: 2 },
      data: { name: "Release bot", rootRole: 3 },
    });

    expect((await server.request(`/api/admin/service-account/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await latestEvent(server, "service-account-deleted")).preData).toMatchObject({
      id,
      username: "deployer",
    });
    expect((await server.request("/api/admin/service-account")).body.serviceAccounts).toEqual([]);
    expect((await server.request(`/api/admin/service-account/${id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("show their tokens, never the tokens' secrets", async () => {
    const account = await server.request("/api/admin/service-account", {
      method: "POST",
      body: { username: "pipeline", rootRole: "Viewer" },
    });
    expect(account.body.tokens).toEqual([]);
    const id = account.body.id as number;
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const token = await server.request(`/api/admin/service-account/${id}/token`, {
      method: "POST",
      body: { description: "ci", expiresAt },
    });
    expect(token.status).toBe(201);
    // Used once: the listing says when.
    expect((await server.request("/api/admin/projects", { token: token.body.secret })).status).toBe(200);
    await server.services.personalTokens.flushSeen();

    const shown = {
      id: token.body.id,
      description: "ci",
      expiresAt,
      createdAt: token.body.createdAt,
      seenAt: expect.any(String),
    };
    const list = await server.request("/api/admin/service-account");
    expect(list.status).toBe(200);
    const listed = list.body.serviceAccounts.find((candidate: { id: number }) => candidate.id === id);
    expect(listed.tokens).toEqual([shown]);
    expect(JSON.stringify(list.body)).not.toContain(token.body.secret);
    const changed = await server.request(`/api/admin/service-account/${id}`, {
      method: "PUT",
      body: { name: "Pipeline" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: "Pipeline", tokens: [shown] });
    expect(JSON.stringify(changed.body)).not.toContain(token.body.secret);
  });

  it("have no password and never log in", async () => {
    // A password sent along is dropped, as every field the API does not know.
    const created = await server.request("/api/admin/service-account", {
      method: "POST",
      body: { username: "quiet", rootRole: "Viewer", password: "Strong-password-1" },
    });
    expect(created.status).toBe(201);
    const stored = await server.db
      .selectFrom("users")
      .select("password_hash")
      .where("id", "=", created.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toBeNull();
    const login = await server.request("/auth/simple/login", {
      method: "POST",
      token: null,
      body: { username: "quiet", password: "Strong-password-1" },
    });
    expect(login.status).toBe(401);
    expect(login.body.name).toBe("PasswordMismatch");
  });

  it("refuses taken usernames and unknown root roles", async () => {
    const post = (body: unknown) => server.request("/api/admin/service-account", { method: "POST", body });
    expect((await post({ username: "twin", rootRole: "Viewer" })).status).toBe(201);
    expect((await post({ username: "Twin", rootRole: "Viewer" })).status).toBe(409);
    expect((await post({ username: "lonely", rootRole: "Member" })).status).toBe(400);
  });

  it("are managed by admins only", async () => {
    const editor = await sessionOf(server, "Editor");
    const reply = await server.request("/api/admin/service-account", {
      token: null,
      headers: { cookie: editor },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.name).toBe("NoAccessError");
  });
});
