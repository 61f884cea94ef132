import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKinds } from "./support/database.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

const loginAs = (server: TestServer, username: string, password: string) =>
  server.request("/auth/simple/login", { method: "POST", token: null, body: { username, password } });

const asSession = (cookie: string) => ({ token: null, headers: { cookie } });

// Not through server.request: fetch would follow the redirect.
const logout = (server: TestServer, method: string, cookie?: string) =>
  fetch(`${server.url}/logout`, { method, headers: cookie ? { cookie } : {}, redirect: "manual" });

describe.each(databaseKinds)("logging in and out (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("sets an HttpOnly, SameSite=Lax session cookie that the admin API accepts", async () => {
    const user = await createUser(server, { rootRole: "Editor", email: "Ada@Example.com", name: "Ada" });
    const reply = await loginAs(server, user.username, user.password);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: user.id,
      username: user.username,
      rootRole: 2,
      accountType: "User",
    });
    const cookie = reply.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^unleash-session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    // Served over plain HTTP here: a Secure cookie would never come back.
    expect(cookie).not.toContain("Secure");
    const expires = new Date(/Expires=([^;]+)/.exec(cookie)![1]!).getTime();
    expect(Math.abs(expires - (Date.now() + 48 * 3_600_000))).toBeLessThan(60_000);

    const me = await server.request("/api/admin/user", asSession(cookie.split(";")[0]!));
    expect(me.status).toBe(200);
    expect(me.headers.get("cache-control")).toBe("no-store");
    expect(me.body.user).toMatchObject({ id: user.id, username: user.username, email: "Ada@Example.com" });
    expect(me.body.user.seenAt).not.toBeNull();

    // Email or username, whatever the case.
    expect((await loginAs(server, "ada@example.COM", user.password)).status).toBe(200);
    expect((await loginAs(server, user.username.toUpperCase(), user.password)).status).toBe(200);
  });

  it("answers every failed login the same way, never saying whether the user exists", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    const wrong = await loginAs(server, user.username, "Wrong-password-1");
    const unknown = await loginAs(server, "nobody-at-all", "Wrong-password-1");
    const serviceAccount = await server.request("/api/admin/service-account", {
      method: "POST",
      body: { username: "robot", rootRole: "Viewer" },
    });
    const robot = await loginAs(server, "robot", "Wrong-password-1");
    expect(serviceAccount.status).toBe(201);
    for (const reply of [wrong, unknown, robot]) {
      expect(reply.status).toBe(401);
      expect(reply.headers.get("set-cookie")).toBeNull();
    }
    expect(wrong.body.name).toBe("PasswordMismatch");
    expect(unknown.body.message).toBe(wrong.body.message);
    expect(robot.body.message).toBe(wrong.body.message);
  });

  it("ends the session on logout: the same cookie is refused after", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    for (const method of ["POST", "GET"]) {
      const cookie = await login(server, user.username, user.password);
      const other = await login(server, user.username, user.password);
      const reply = await logout(server, method, cookie);
      expect(reply.status).toBe(302);
      expect(reply.headers.get("location")).toBe("/signed-out");
      expect(reply.headers.get("set-cookie")).toMatch(/^unleash-session=;.*Expires=Thu, 01 Jan 1970/);
      const after = await server.request("/api/admin/user", asSession(cookie));
      expect(after.status).toBe(401);
      expect(after.body.name).toBe("AuthenticationRequired");
      // Logging out in one browser leaves the others logged in.
      expect((await server.request("/api/admin/user", asSession(other))).status).toBe(200);
    }
    // Without a session there is nothing to end; the answer is the same.
    expect((await logout(server, "POST")).status).toBe(302);
  });

  it("refuses an expired session, and sweeps expired ones away", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, user.username, user.password);
    await server.db
      .updateTable("sessions")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("user_id", "=", user.id)
      .execute();
    const reply = await server.request("/api/admin/user", asSession(cookie));
    expect(reply.status).toBe(401);
    expect(reply.body.message).toContain("session has expired");
    await server.services.sessions.sweep();
    const left = await server.db
      .selectFrom("sessions")
      .select("user_id")
      .where("user_id", "=", user.id)
      .execute();
    expect(left).toEqual([]);
  });

  it("keeps only a hash of the session id", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, user.username, user.password);
    const id = cookie.split("=")[1]!;
    const rows = await server.db
      .selectFrom("sessions")
      .select("id_hash")
      .where("user_id", "=", user.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.id_hash).not.toContain(id);
  });
});

describe("repeated failed logins for one name from one address", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  it("does not count successful logins", async () => {
    const user = await createUser(server, { rootRole: "Viewer" });
    for (let attempt = 0; attempt < 12; attempt++) {
      expect((await loginAs(server, user.username, user.password)).status).toBe(200);
    }
  });

  it("refuses the eleventh failure in a minute, and every login after, until the minute has passed", async () => {
    // Only Date is faked: the server's sockets and timers run as ever.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const user = await createUser(server, { rootRole: "Viewer" });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await loginAs(server, user.username, "Wrong-password-1")).status).toBe(401);
    }
    const limited = await loginAs(server, user.username, "Wrong-password-1");
    expect(limited.status).toBe(429);
    expect(limited.body.name).toBe("RateLimitError");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(50);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    // The right password too: a guesser must not learn that a guess was right.
    expect((await loginAs(server, user.username, user.password)).status).toBe(429);

    vi.setSystemTime(Date.now() + 61_000);
    expect((await loginAs(server, user.username, user.password)).status).toBe(200);
  });

  it("counts failures per username and address: a guesser locks out only the name they guess", async () => {
    const alice = await createUser(server, { rootRole: "Viewer" });
    const bob = await createUser(server, { rootRole: "Viewer" });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await loginAs(server, alice.username, "Wrong-password-1")).status).toBe(401);
    }
    // The same name in another case is the same login, and counts with it.
    expect((await loginAs(server, alice.username.toUpperCase(), "Wrong-password-1")).status).toBe(429);
    const limited = await loginAs(server, alice.username, alice.password);
    expect(limited.status).toBe(429);
    expect(limited.body.name).toBe("RateLimitError");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Someone else behind the same address (one NAT, one office) still logs in.
    expect((await loginAs(server, bob.username, bob.password)).status).toBe(200);
    expect((await loginAs(server, bob.username, "Wrong-password-1")).status).toBe(401);
  });

  it("limits a name no user has as it limits one a user has, so the limit tells no one who exists", async () => {
    const known = await createUser(server, { rootRole: "Viewer" });
    const answers = async (username: string) => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 11; attempt++) {
        statuses.push((await loginAs(server, username, "Wrong-password-1")).status);
      }
      return statuses;
    };
    const expected = [...Array(10).fill(401), 429];
    expect(await answers(known.username)).toEqual(expected);
    expect(await answers("no-such-person")).toEqual(expected);
  });
});
