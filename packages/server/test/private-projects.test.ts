import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// A private project does not exist for those outside it: not in a listing, not in a search,
// not in the event log, and a 404 (never a 403) when asked for by name.

let server: TestServer;
let outsider: Record<string, string>;
let member: Record<string, string>;
let viewerToken: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  const created = await server.request("/api/admin/projects", {
    method: "POST",
    body: { id: "hidden", name: "Hidden", mode: "private" },
  });
  expect(created.status).toBe(201);
  for (const [path, body] of [
    ["/api/admin/projects/hidden/features", { name: "secret-launch" }],
    ["/api/admin/projects/hidden/features", { name: "secret-archived" }],
    ["/api/admin/projects/default/features", { name: "public-flag" }],
    ["/api/admin/segments", { name: "hidden-segment", project: "hidden", constraints: [] }],
    ["/api/admin/features/secret-launch/tags", { type: "simple", value: "quiet" }],
  ] as const) {
    const reply = await server.request(path, { method: "POST", body });
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  }
  await server.request("/api/admin/projects/hidden/features/secret-archived", { method: "DELETE" });

  const out = await createUser(server, { rootRole: "Editor", username: "outsider" });
  outsider = { cookie: await login(server, out.username, out.password) };
  const inside = await createUser(server, { rootRole: "Viewer", username: "insider" });
  member = { cookie: await login(server, inside.username, inside.password) };
  const access = await server.request("/api/admin/projects/hidden/access", {
    method: "POST",
    body: { roles: [5], users: [inside.id], groups: [] },
  });
  expect(access.status, JSON.stringify(access.body)).toBeLessThan(300);
  const viewer = await createUser(server, { rootRole: "Viewer", username: "viewer" });
  const pat = await server.request("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie: await login(server, viewer.username, viewer.password) },
    body: { description: "script", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  expect(pat.status, JSON.stringify(pat.body)).toBe(201);
  viewerToken = { authorization: pat.body.secret };
});
afterAll(() => server?.close());

const as = (
  headers: Record<string, string>,
  path: string,
  options: { method?: string; body?: unknown } = {},
) => server.request(path, { ...options, token: null, headers });

describe("a private project", () => {
  it.each([
    ["an Editor outside it", () => outsider],
    ["a Viewer's personal access token", () => viewerToken],
  ])("is missing from every listing and search for %s", async (_, who) => {
    const headers = who();
    const projects = await as(headers, "/api/admin/projects");
    expect(projects.status).toBe(200);
    expect(projects.body.projects.map((p: { id: string }) => p.id)).toEqual(["default"]);

    const archived = await as(headers, "/api/admin/archive/features");
    expect(archived.body.features.map((f: { name: string }) => f.name)).not.toContain("secret-archived");

    const segments = await as(headers, "/api/admin/segments");
    expect(segments.body.segments.map((s: { name: string }) => s.name)).not.toContain("hidden-segment");

    for (const search of [{ project: "hidden" }, { query: "secret" }, { feature: "secret-launch" }, {}]) {
      const events = await as(headers, "/api/admin/events/search", { method: "POST", body: search });
      expect(events.status).toBe(200);
      const leaked = events.body.events.filter(
        (event: { project: string | null; data: unknown }) =>
          event.project === "hidden" || JSON.stringify(event.data ?? null).includes("secret-"),
      );
      expect(leaked).toEqual([]);
    }
    const log = await as(headers, "/api/admin/events?project=hidden");
    expect(log.body.events).toEqual([]);
  });

  it("answers 404 as if it did not exist, on reads and writes alike, to a non-member", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/admin/projects/hidden"],
      ["GET", "/api/admin/projects/hidden/features"],
      ["GET", "/api/admin/projects/hidden/features/secret-launch"],
      ["GET", "/api/admin/features/secret-launch"],
      ["GET", "/api/admin/features/secret-launch/tags"],
      ["GET", "/api/admin/archive/features/hidden"],
      ["POST", "/api/admin/projects/hidden/features", { name: "sneaky" }],
      ["POST", "/api/admin/features/secret-launch/tags", { type: "simple", value: "probe" }],
      ["POST", "/api/admin/archive/revive/secret-archived"],
    ] as const) {
      const reply = await as(outsider, path, { method, ...(body ? { body } : {}) });
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(404);
      expect(reply.body.name).toBe("NotFoundError");
    }
    // The same answer as for a project that truly does not exist.
    const missing = await as(outsider, "/api/admin/projects/no-such-project");
    const hidden = await as(outsider, "/api/admin/projects/hidden");
    expect(hidden.body.message.replace("hidden", "X")).toBe(
      missing.body.message.replace("no-such-project", "X"),
    );
  });

  it("shows everything to its member", async () => {
    const projects = await as(member, "/api/admin/projects");
    expect(projects.body.projects.map((p: { id: string }) => p.id).sort()).toEqual(["default", "hidden"]);
    const flag = await as(member, "/api/admin/features/secret-launch");
    expect(flag.status).toBe(200);
    const events = await as(member, "/api/admin/events/search", {
      method: "POST",
      body: { project: "hidden" },
    });
    expect(events.body.events.length).toBeGreaterThan(0);
    const created = await as(member, "/api/admin/projects/hidden/features", {
      method: "POST",
      body: { name: "member-made" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });
});

describe("a protected project", () => {
  it("is seen by everyone but changed by its members only: the Editor's root role no longer counts", async () => {
    const open = await as(outsider, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "while-open" },
    });
    expect(open.status, JSON.stringify(open.body)).toBe(200);

    const protect = await server.request("/api/admin/projects/default/settings", {
      method: "PUT",
      body: { mode: "protected" },
    });
    expect(protect.status).toBe(200);
    const refused = await as(outsider, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "while-protected" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ name: "NoAccessError" });
    expect(refused.body.message).toContain('"CREATE_FEATURE"');
    expect((await as(outsider, "/api/admin/projects/default/features/while-open")).status).toBe(200);

    const reopen = await server.request("/api/admin/projects/default/settings", {
      method: "PUT",
      body: { mode: "open" },
    });
    expect(reopen.status).toBe(200);
    const again = await as(outsider, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "while-protected" },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });
});
