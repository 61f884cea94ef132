import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "./support/fingerprint.js";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

const FEATURES = "/api/admin/projects/default/features";

// A build of the UI as Vite lays it out, so that the service serves pages as in production.
let uiDir: string;
let server: TestServer;
let cookie: string;
// Another port of the same host: same site for SameSite=Lax, yet another origin.
let sibling: string;

beforeAll(async () => {
  uiDir = await mkdtemp(join(tmpdir(), "signalbox-ui-"));
  await mkdir(join(uiDir, "assets"));
  await writeFile(join(uiDir, "index.html"), "<!doctype html><title>Signalbox</title>");
  await writeFile(join(uiDir, "assets", "index-abc123.js"), "console.log('ui')");
  server = await startTestServer("pglite", undefined, { uiDir });
  const admin = await createUser(server, { rootRole: "Admin" });
  cookie = await login(server, admin.username, admin.password);
  sibling = `http://127.0.0.1:${Number(new URL(server.url).port) + 1}`;
});
afterAll(async () => {
  await server.close();
  await rm(uiDir, { recursive: true });
});

/** A flag that is off in development, and how to read whether it still is. */
async function offFlag(name: string) {
  expect((await server.request(FEATURES, { method: "POST", body: { name } })).status).toBe(200);
  const switchOn = `${FEATURES}/${name}/environments/development/on`;
  const enabled = async () => {
    const { body } = await server.request(`${FEATURES}/${name}`);
    return body.environments.find((environment: { name: string }) => environment.name === "development")
      .enabled as boolean;
  };
  return { switchOn, enabled };
}

// As a browser's no-cors fetch sends it: no body, no content type, the session cookie.
const bodiless = (path: string, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: "POST", headers });

describe("security headers", () => {
  const expectHardened = (headers: Headers) => {
    expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("x-content-type-options")).toBe("nosniff");
    expect(headers.get("referrer-policy")).toBe("same-origin");
  };

  it("are on the UI's pages, with a policy that allows no inline or foreign script", async () => {
    for (const path of ["/", "/projects/default"]) {
      const page = await fetch(`${server.url}${path}`, { headers: { accept: "text/html" } });
      expect(page.status).toBe(200);
      expectHardened(page.headers);
      const policy = page.headers.get("content-security-policy")!;
      expect(policy).toMatch(/(^|;)\s*default-src 'self'/);
      expect(policy).toMatch(/(^|;)\s*script-src 'self'(;|$)/);
      expect(policy).toMatch(/(^|;)\s*object-src 'none'/);
      expect(policy).toMatch(/(^|;)\s*form-action 'self'/);
    }
    expectHardened((await fetch(`${server.url}/assets/index-abc123.js`)).headers);
  });

  it("are on the API's answers, errors and SDK documents included", async () => {
    const replies = [
      await server.request("/api/admin/projects"),
      await server.request("/api/admin/projects", { token: null }),
      await server.request("/api/admin/projects/default/features/nothing-here"),
      await server.request("/api/admin/no-such-route"),
      await server.request("/api/client/features", { token: CLIENT_TOKEN }),
      await server.request("/docs/openapi.json", { token: null }),
      await server.request("/health", { token: null }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 401, 404, 404, 200, 200, 200]);
    for (const reply of replies) expectHardened(reply.headers);
    // An SDK document is data: rendered by a browser, it could load nothing at all.
    expect(replies[4]!.headers.get("content-security-policy")).toMatch(/(^|;)\s*default-src 'none'/);
  });

  it("are on the API documentation page, whose policy lets it run", async () => {
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    expectHardened(page.headers);
  });
});

describe("a state-changing request made with a login session", () => {
  it("is refused from another port of the same host, with no body and no content type, and changes nothing", async () => {
    const flag = await offFlag("sibling-origin");
    const before = await fingerprint(server);
    const reply = await bodiless(flag.switchOn, { cookie, origin: sibling });
    expect(reply.status).toBe(403);
    const body = (await reply.json()) as { name: string; message: string };
    expect(body).toMatchObject({ name: "NoAccessError" });
    expect(body.message).toContain(sibling);
    expect(await flag.enabled()).toBe(false);
    expect(await fingerprint(server)).toEqual(before);
  });

  it("is refused when the browser says it comes from another origin of the site, or another site", async () => {
    const flag = await offFlag("fetch-metadata");
    for (const site of ["same-site", "cross-site"]) {
      const reply = await bodiless(flag.switchOn, { cookie, "sec-fetch-site": site });
      expect(reply.status).toBe(403);
      expect(((await reply.json()) as { message: string }).message).toContain(site);
    }
    // A browser's word beats an Origin header that a proxy might have rewritten.
    const both = await bodiless(flag.switchOn, { cookie, "sec-fetch-site": "same-site", origin: server.url });
    expect(both.status).toBe(403);
    expect(await flag.enabled()).toBe(false);
  });

  it("is refused when nothing says where it comes from", async () => {
    const flag = await offFlag("no-origin");
    const reply = await bodiless(flag.switchOn, { cookie });
    expect(reply.status).toBe(403);
    expect(((await reply.json()) as { message: string }).message).toMatch(/personal access token/);
    expect(await flag.enabled()).toBe(false);
  });

  it("is accepted from the service's own pages", async () => {
    const byMetadata = await offFlag("same-origin-metadata");
    const metadata = await bodiless(byMetadata.switchOn, { cookie, "sec-fetch-site": "same-origin" });
    expect(metadata.status).toBe(200);
    expect(await byMetadata.enabled()).toBe(true);
    const byOrigin = await offFlag("same-origin-header");
    expect((await bodiless(byOrigin.switchOn, { cookie, origin: server.url })).status).toBe(200);
    expect(await byOrigin.enabled()).toBe(true);
  });

  it("is accepted from anywhere when an API token or personal access token authenticates it", async () => {
    const byToken = await offFlag("token-anywhere");
    const token = await server.request(byToken.switchOn, {
      method: "POST",
      headers: { cookie, origin: sibling, "sec-fetch-site": "cross-site" },
    });
    expect(token.status).toBe(200);
    expect(await byToken.enabled()).toBe(true);

    const pat = await server.request("/api/admin/user/tokens", {
      method: "POST",
      token: null,
      headers: { cookie, origin: server.url },
      body: { description: "script", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(pat.status).toBe(201);
    const byPat = await offFlag("pat-anywhere");
    const reply = await bodiless(byPat.switchOn, { authorization: pat.body.secret, origin: sibling });
    expect(reply.status).toBe(200);
    expect(await byPat.enabled()).toBe(true);
  });

  it("may still read from another origin: the browser keeps the answer from the page", async () => {
    const reply = await fetch(`${server.url}/api/admin/projects`, { headers: { cookie, origin: sibling } });
    expect(reply.status).toBe(200);
  });
});

describe("logging in", () => {
  it("is refused when a browser says the form is on another site or origin, and no session is made", async () => {
    const person = await createUser(server, { rootRole: "Viewer" });
    const credentials = JSON.stringify({ username: person.username, password: person.password });
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/auth/simple/login`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: credentials,
      });
    const elsewhere: Record<string, string>[] = [{ "sec-fetch-site": "cross-site" }, { origin: sibling }];
    for (const headers of elsewhere) {
      const refused = await post(headers);
      expect(refused.status).toBe(403);
      expect(refused.headers.get("set-cookie")).toBeNull();
    }
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(200);
    // Scripts, which no page can drive, log in as before.
    expect((await post({})).status).toBe(200);
  });
});

describe("behind a proxy", () => {
  let proxied: TestServer;
  let session: string;
  beforeAll(async () => {
    proxied = await startTestServer("pglite", undefined, { trustProxy: true });
    const admin = await createUser(proxied, { rootRole: "Admin" });
    session = await login(proxied, admin.username, admin.password);
  });
  afterAll(() => proxied.close());

  it("takes the origin the proxy was reached at, when TRUST_PROXY believes it", async () => {
    const forwarded = {
      cookie: session,
      origin: "https://flags.example.com",
      "x-forwarded-host": "flags.example.com",
      "x-forwarded-proto": "https",
    };
    const create = (name: string, headers: Record<string, string>) =>
      proxied.request(FEATURES, { method: "POST", token: null, headers, body: { name } });
    expect((await create("behind-proxy", forwarded)).status).toBe(200);
    const elsewhere = await create("from-elsewhere", { ...forwarded, origin: "https://evil.example.com" });
    expect(elsewhere.status).toBe(403);
  });
});
