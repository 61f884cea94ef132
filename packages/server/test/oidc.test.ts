import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { ConfigError, defaultConfig, loadConfig } from "../src/config.js";
import { localPath } from "../src/domains/sso/attempt.js";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

const CLIENT_ID = "signalbox";
const CLIENT_SECRET = "oidc-test-client-secret";
const ACCOUNTS = {
  alice: { email: "Alice@Example.com", email_verified: true, name: "Alice Liddell" },
  carol: { email: "carol@example.com", email_verified: true, name: "Carol" },
  mallory: { email: "mallory@elsewhere.org", email_verified: true, name: "Mallory" },
  eve: { email: "eve@example.com", email_verified: false, name: "Eve" },
  nobody: { name: "No Email" },
  // No email_verified claim at all: an admin's address, and one no user has.
  boss: { email: "boss@example.com", name: "The Boss" },
  newcomer: { email: "newcomer@example.com", name: "Newcomer" },
};
type Account = keyof typeof ACCOUNTS | "stranger";

interface Provider {
  issuer: string;
  stop(): Promise<void>;
}

/** The OpenID provider of test/support/oidc-provider.mjs, in a process of its own, knowing one client. */
async function startProvider(redirectUri: string): Promise<Provider> {
  const child: ChildProcess = fork(resolve(import.meta.dirname, "support/oidc-provider.mjs"), [], {
    execArgv: [],
    env: {
      PATH: process.env.PATH,
      OIDC_CLIENT: JSON.stringify({
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
      }),
      OIDC_ACCOUNTS: JSON.stringify(ACCOUNTS),
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    output += chunk;
  });
  const exited = once(child, "exit");
  const ready = await Promise.race([
    once(child, "message").then(([message]) => message as { issuer: string }),
    exited.then(() => {
      throw new Error(`the OpenID provider exited before it was ready:\n${output}`);
    }),
  ]);
  return {
    issuer: ready.issuer,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}

const cookieValue = (response: Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1);

const setCookie = (response: Response, name: string): string | undefined =>
  response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));

describe("redirects after signing in", () => {
  it("keeps paths on this server and refuses every way off it", () => {
    expect(localPath("/projects/default?tab=flags#top")).toBe("/projects/default?tab=flags#top");
    expect(localPath(undefined)).toBeUndefined();
    for (const away of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "/.//evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
      "projects",
    ]) {
      expect(localPath(away), away).toBeUndefined();
    }
  });
});

describe("TRUST_PROXY", () => {
  it("believes no proxy by default, any with true, or those at the addresses given", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, loopback, ::1" }).trustProxy).toBe(
      "10.0.0.0/8, loopback, ::1",
    );
    expect(() => loadConfig({ TRUST_PROXY: "proxy.internal" })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/8/1" })).toThrow(/TRUST_PROXY/);
  });
});

describe.each(databaseKinds)("single sign-on with OpenID Connect (%s)", (kind) => {
  let server: TestServer;
  let provider: Provider;
  beforeAll(async () => {
    server = await startTestServer(kind);
    provider = await startProvider(`${server.url}/auth/oidc/callback`);
  });
  afterAll(async () => {
    await provider.stop();
    await server.close();
  });

  const settings = (body: Record<string, unknown>) =>
    server.request("/api/admin/auth/oidc/settings", { method: "POST", body });
  const enable = (changes: Record<string, unknown> = {}) =>
    settings({
      enabled: true,
      discoverUrl: provider.issuer,
      clientId: CLIENT_ID,
      secret: CLIENT_SECRET,
      autoCreate: true,
      emailDomains: "example.com",
      defaultRootRole: "Editor",
      ...changes,
    });

  const usersByEmail = (email: string) =>
    server.db
      .selectFrom("users")
      .selectAll()
      .where(sql<string>`lower(email)`, "=", email.toLowerCase())
      .execute();

  /**
   * A browser signing in: this service's login redirect, the provider (logging the account in
   * through the `login_hint` its interaction reads), and back to the callback with the
   * attempt cookie, unless the test changes the answer on the way.
   */
  async function signIn(
    account: Account,
    options: { redirect?: string; answer?: (callback: URL) => void; attemptCookie?: boolean } = {},
  ) {
    const query = options.redirect === undefined ? "" : `?redirect=${encodeURIComponent(options.redirect)}`;
    const login = await fetch(`${server.url}/auth/oidc/login${query}`, { redirect: "manual" });
    expect(login.status, await login.clone().text()).toBe(302);
    const attempt = cookieValue(login, "signalbox-oidc");
    const authorize = new URL(login.headers.get("location")!);
    authorize.searchParams.set("login_hint", account);
    const jar = new Map<string, string>();
    let next = authorize.href;
    for (let step = 0; !next.startsWith(`${server.url}/`); step++) {
      if (step === 10) throw new Error("the provider never sent the browser back");
      const response = await fetch(next, {
        redirect: "manual",
        headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ""] = cookie.split(";");
        const split = pair.indexOf("=");
        jar.set(pair.slice(0, split), pair.slice(split + 1));
      }
      const location = response.headers.get("location");
      if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
      next = new URL(location, next).href;
    }
    const callback = new URL(next);
    options.answer?.(callback);
    const response = await fetch(callback, {
      redirect: "manual",
      headers: options.attemptCookie === false ? {} : { cookie: `signalbox-oidc=${attempt}` },
    });
    const text = await response.text();
    return {
      login,
      authorize,
      callback,
      response,
      body: text ? JSON.parse(text) : undefined,
      session: cookieValue(response, "unleash-session"),
    };
  }

  it("answers 404 to signing in while it is not enabled", async () => {
    const login = await fetch(`${server.url}/auth/oidc/login`, { redirect: "manual" });
    expect(login.status).toBe(404);
    expect((await server.request("/auth/oidc/callback?code=x&state=y", { token: null })).status).toBe(404);
    // A login page learns the ways in from the admin API's 401: the password only, for now.
    const anonymous = await server.request("/api/admin/user", { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({
      name: "AuthenticationRequired",
      path: "/auth/simple/login",
      type: "password",
      options: [],
    });
    const read = await server.request("/api/admin/auth/oidc/settings");
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      enabled: false,
      secret: "",
      autoCreate: false,
      defaultRootRole: "Viewer",
    });
  });

  it("refuses to enable settings that cannot work, naming the field, and stores nothing", async () => {
    expectInvalid(await enable({ discoverUrl: "ftp://idp.example" }), "discoverUrl");
    expectInvalid(await enable({ clientId: "" }), "clientId");
    expectInvalid(await enable({ emailDomains: "example.com, not a domain" }), "emailDomains");
    const unreachable = await enable({ discoverUrl: "http://127.0.0.1:9/" });
    expectInvalid(unreachable, "discoverUrl");
    expect(unreachable.body.message).toContain("discovery document");
    const wrongAlgorithm = await enable({ idTokenSigningAlgorithm: "RS512" });
    expectInvalid(wrongAlgorithm, "discoverUrl");
    expect(wrongAlgorithm.body.message).toContain("RS512");
    expect(await server.db.selectFrom("auth_settings").selectAll().execute()).toEqual([]);
  });

  it("saves the settings, keeps the secret, and never shows it", async () => {
    // The reference's setting is usually the discovery document's URL rather than the issuer.
    const saved = await enable({
      discoverUrl: `${provider.issuer}/.well-known/openid-configuration`,
      emailDomains: "@Example.com",
      // What the reference's form sends and this service does not offer is let through and dropped.
      enableGroupSyncing: false,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual({
      enabled: true,
      discoverUrl: `${provider.issuer}/.well-known/openid-configuration`,
      clientId: CLIENT_ID,
      secret: "********",
      autoCreate: true,
      emailDomains: "example.com",
      defaultRootRole: "Editor",
      acrValues: "",
      idTokenSigningAlgorithm: "RS256",
      assumeEmailVerified: false,
    });
    expect(await latestEvent(server, "setting-created")).toMatchObject({
      data: { id: "oidc", hideEventDetails: true },
    });

    // Saving what was read back (the masked secret) keeps the secret.
    const resaved = await settings({ ...saved.body, discoverUrl: provider.issuer });
    expect(resaved.status, JSON.stringify(resaved.body)).toBe(200);
    const read = await server.request("/api/admin/auth/oidc/settings");
    expect(read.body).toEqual({ ...saved.body, discoverUrl: provider.issuer });
    const stored = await server.db.selectFrom("auth_settings").select("content").executeTakeFirstOrThrow();
    expect(stored.content).toMatchObject({ secret: CLIENT_SECRET });
    const updated = await latestEvent(server, "setting-updated");
    expect(updated).toMatchObject({ data: { id: "oidc", hideEventDetails: true } });
    const anonymous = await server.request("/api/admin/user", { token: null });
    expect(anonymous.body.options).toEqual([
      { type: "oidc", message: "Sign in with OpenID Connect", path: "/auth/oidc/login" },
    ]);
    for (const answer of [saved.body, resaved.body, read.body, updated]) {
      expect(JSON.stringify(answer)).not.toContain(CLIENT_SECRET);
    }
  });

  it("creates a user at first sign-in with the default root role, and signs them in", async () => {
    const first = await signIn("alice", { redirect: "/projects/default?tab=flags" });
    // PKCE (S256), state and nonce, for the callback this server names from its own address.
    const parameters = Object.fromEntries(first.authorize.searchParams);
    expect(parameters).toMatchObject({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: `${server.url}/auth/oidc/callback`,
      scope: "openid email profile",
      code_challenge_method: "S256",
    });
    for (const name of ["state", "nonce", "code_challenge"]) expect(parameters[name]).toMatch(/^[\w-]{20,}$/);
    const attempt = setCookie(first.login, "signalbox-oidc")!;
    expect(attempt).toMatch(/Path=\/auth\/oidc/);
    expect(attempt).toMatch(/Max-Age=600/);
    expect(attempt).toMatch(/HttpOnly/);
    expect(attempt).toMatch(/SameSite=Lax/);
    expect(attempt).not.toMatch(/Secure/);
    expect(attempt).not.toContain(CLIENT_SECRET);

    expect(first.response.status, JSON.stringify(first.body)).toBe(302);
    expect(first.response.headers.get("location")).toBe("/projects/default?tab=flags");
    expect(first.session).toBeDefined();
    expect(setCookie(first.response, "unleash-session")).toMatch(/HttpOnly/);
    // The attempt is spent.
    expect(setCookie(first.response, "signalbox-oidc")).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);

    const [alice, ...others] = await usersByEmail("alice@example.com");
    expect(others).toEqual([]);
    expect(alice).toMatchObject({
      name: "Alice Liddell",
      root_role_id: 2,
      is_active: true,
      is_service: false,
    });
    expect(alice!.password_hash).toBeNull();
    expect(await latestEvent(server, "user-created")).toMatchObject({
      createdBy: "oidc",
      data: { id: alice!.id, rootRole: 2 },
    });

    const me = await server.request("/api/admin/user", {
      token: null,
      headers: { cookie: `unleash-session=${first.session}` },
    });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.user).toMatchObject({ id: alice!.id });
    // An Editor may create a tag type; the session acts as that user.
    const created = await server.request("/api/admin/tag-types", {
      method: "POST",
      body: { name: "from-sso" },
      token: null,
      headers: { cookie: `unleash-session=${first.session}` },
    });
    expect(created.status).toBe(201);
    expect((await latestEvent(server, "tag-type-created")).createdByUserId).toBe(alice!.id);
    // The settings are for admins only.
    const settingsRead = await server.request("/api/admin/auth/oidc/settings", {
      token: null,
      headers: { cookie: `unleash-session=${first.session}` },
    });
    expect(settingsRead.status).toBe(403);

    // A second sign-in finds the same user, with a session of its own.
    const second = await signIn("alice");
    expect(second.response.status, JSON.stringify(second.body)).toBe(302);
    expect(second.response.headers.get("location")).toBe("/");
    expect(second.session).toBeDefined();
    expect(second.session).not.toBe(first.session);
    expect(await usersByEmail("alice@example.com")).toHaveLength(1);
  });

  it("lands on this server whatever redirect the login was given", async () => {
    const away = await signIn("alice", { redirect: "//evil.example/phish" });
    expect(away.response.status).toBe(302);
    expect(away.response.headers.get("location")).toBe("/");
  });

  it("names its callback from X-Forwarded-* only when it trusts the proxy that sends them", async () => {
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "flags.example.com" };
    const untrusted = await fetch(`${server.url}/auth/oidc/login`, {
      redirect: "manual",
      headers: forwarded,
    });
    expect(new URL(untrusted.headers.get("location")!).searchParams.get("redirect_uri")).toBe(
      `${server.url}/auth/oidc/callback`,
    );

    // The same service behind a proxy on this machine, over the same database.
    const { app } = await buildApp(defaultConfig({ logLevel: "silent", trustProxy: "loopback" }), server.db);
    try {
      const login = await app.inject({ url: "/auth/oidc/login", headers: forwarded });
      expect(login.statusCode).toBe(302);
      expect(new URL(login.headers.location as string).searchParams.get("redirect_uri")).toBe(
        "https://flags.example.com/auth/oidc/callback",
      );
      expect(String(login.headers["set-cookie"])).toMatch(/; Secure/);
    } finally {
      await app.close();
    }
  });

  it("refuses to create a user for an email outside the allowed domains", async () => {
    const refused = await signIn("mallory");
    expect(refused.response.status).toBe(403);
    expect(refused.body).toMatchObject({ name: "NoAccessError" });
    expect(refused.body.message).toContain("example.com");
    expect(refused.session).toBeUndefined();
    expect(await usersByEmail("mallory@elsewhere.org")).toEqual([]);
  });

  it("refuses emails the provider has not verified, or not given", async () => {
    const unverified = await signIn("eve");
    expect(unverified.response.status).toBe(403);
    expect(unverified.body.message).toContain("not verified");
    const without = await signIn("nobody");
    expect(without.response.status).toBe(403);
    expect(without.body.message).toContain("email");
    expect(await usersByEmail("eve@example.com")).toEqual([]);
  });

  it("counts an email without email_verified as unverified, unless told the provider verifies every email", async () => {
    const admin = await server.request("/api/admin/user-admin", {
      method: "POST",
      body: { email: "boss@example.com", name: "Boss", rootRole: "Admin" },
    });
    expect(admin.status).toBe(201);
    const adminSessions = () =>
      server.db.selectFrom("sessions").select("user_id").where("user_id", "=", admin.body.id).execute();

    // Anyone who can make an account at the provider with that address would become the admin.
    const refused = await signIn("boss");
    expect(refused.response.status).toBe(403);
    expect(refused.body).toMatchObject({ name: "NoAccessError" });
    expect(refused.body.message).toContain("email_verified");
    expect(refused.session).toBeUndefined();
    expect(await adminSessions()).toEqual([]);
    // Nor is a user created for such an address.
    const stranger = await signIn("newcomer");
    expect(stranger.response.status).toBe(403);
    expect(await usersByEmail("newcomer@example.com")).toEqual([]);

    expect((await enable({ assumeEmailVerified: true })).body.assumeEmailVerified).toBe(true);
    const linked = await signIn("boss");
    expect(linked.response.status, JSON.stringify(linked.body)).toBe(302);
    const me = await server.request("/api/admin/user", {
      token: null,
      headers: { cookie: `unleash-session=${linked.session}` },
    });
    expect(me.body.user).toMatchObject({ id: admin.body.id, rootRole: 1 });
    expect((await signIn("newcomer")).response.status).toBe(302);
    expect(await usersByEmail("newcomer@example.com")).toHaveLength(1);
    // A claim that says false is still believed.
    expect((await signIn("eve")).response.status).toBe(403);
    expect((await enable()).body.assumeEmailVerified).toBe(false);
  });

  it("refuses an answer that is not the one this browser asked for", async () => {
    const tampered = await signIn("carol", {
      answer: (callback) => callback.searchParams.set("state", "forged-state"),
    });
    expect(tampered.response.status).toBe(401);
    expect(tampered.body).toMatchObject({ name: "AuthenticationRequired" });
    expect(tampered.session).toBeUndefined();

    const otherBrowser = await signIn("carol", { attemptCookie: false });
    expect(otherBrowser.response.status).toBe(401);
    expect(otherBrowser.body.message).toContain("sign in again");

    const refusedAtProvider = await signIn("stranger");
    expect(refusedAtProvider.response.status).toBe(401);
    expect(refusedAtProvider.body.message).toContain("access_denied");
    expect(await usersByEmail("carol@example.com")).toEqual([]);
  });

  it("refuses unknown emails when users are not created at sign-in, and deactivated users", async () => {
    expect((await enable({ autoCreate: false })).status).toBe(200);
    const unknown = await signIn("carol");
    expect(unknown.response.status).toBe(401);
    expect(unknown.body.message).toContain("carol@example.com");
    expect(await usersByEmail("carol@example.com")).toEqual([]);

    await server.db
      .updateTable("users")
      .set({ is_active: false })
      .where("email", "ilike", "alice@example.com")
      .execute();
    const deactivated = await signIn("alice");
    expect(deactivated.response.status).toBe(403);
    expect(deactivated.body.message).toContain("deactivated");
  });

  it("answers 404 again once disabled, keeping the rest of the settings", async () => {
    const current = (await server.request("/api/admin/auth/oidc/settings")).body;
    expect((await settings({ ...current, enabled: false })).status).toBe(200);
    expect((await fetch(`${server.url}/auth/oidc/login`, { redirect: "manual" })).status).toBe(404);
    expect((await server.request("/api/admin/projects", { token: null })).body.options).toEqual([]);
    const stored = await server.db.selectFrom("auth_settings").select("content").executeTakeFirstOrThrow();
    expect(stored.content).toMatchObject({ enabled: false, clientId: CLIENT_ID, secret: CLIENT_SECRET });
  });
});
