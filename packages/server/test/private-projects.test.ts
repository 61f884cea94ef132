import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "./support/fingerprint.js";
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

  it("cannot be put in an API token by a non-member, whose answer tells no more than for a missing project", async () => {
    const token = (projects?: string[]) =>
      as(outsider, "/api/admin/api-tokens", {
        method: "POST",
        body: {
          tokenName: "probe",
          type: "client",
          environment: "development",
          ...(projects && { projects }),
        },
      });
    const anonymous = (reply: { body: Record<string, unknown> }, id: string) =>
      JSON.stringify({ ...reply.body, id: "" }).replaceAll(id, "X");
    const hidden = await token(["hidden"]);
    const missing = await token(["no-such-project"]);
    expect(hidden.status, JSON.stringify(hidden.body)).toBe(400);
    expect(anonymous(hidden, "hidden")).toBe(anonymous(missing, "no-such-project"));
    expect((await token(["default", "hidden"])).status).toBe(400);
    // Every project, this one included: only for whoever sees them all.
    for (const all of [undefined, ["*"]]) {
      const reply = await token(all);
      expect(reply.status, JSON.stringify(reply.body)).toBe(403);
      expect(reply.body.name).toBe("NoAccessError");
    }
    expect((await token(["default"])).status).toBe(201);
    // An Editor who sees every project may make a token for all of them.
    const seer = await createUser(server, { rootRole: "Editor" });
    const joined = await server.request("/api/admin/projects/hidden/access", {
      method: "POST",
      body: { roles: [5], users: [seer.id], groups: [] },
    });
    expect(joined.status).toBeLessThan(300);
    const everything = await as(
      { cookie: await login(server, seer.username, seer.password) },
      "/api/admin/api-tokens",
      {
        method: "POST",
        body: { tokenName: "all-seeing", type: "client", environment: "development" },
      },
    );
    expect(everything.status, JSON.stringify(everything.body)).toBe(201);
    expect(everything.body.projects).toEqual(["*"]);
    const made = await server.db
      .selectFrom("api_tokens")
      .select("projects")
      .where("token_name", "=", "probe")
      .execute();
    expect(made.map((row) => row.projects)).toEqual([["default"]]);
  });

  it("keeps its API tokens out of a non-member's list, and out of their reach", async () => {
    const made = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: {
        tokenName: "hidden-app",
        type: "client",
        environment: "development",
        projects: ["hidden", "default"],
      },
    });
    expect(made.status).toBe(201);
    const listed = await as(outsider, "/api/admin/api-tokens");
    expect(listed.status).toBe(200);
    expect(listed.body.tokens.map((token: { tokenName: string }) => token.tokenName)).not.toContain(
      "hidden-app",
    );
    expect(JSON.stringify(listed.body)).not.toContain('"hidden"');
    const expiry = { expiresAt: new Date(Date.now() + 3_600_000).toISOString() };
    for (const [method, body] of [
      ["PUT", expiry],
      ["DELETE", undefined],
    ] as const) {
      const reply = await as(outsider, `/api/admin/api-tokens/${made.body.id}`, {
        method,
        ...(body && { body }),
      });
      expect(reply.status, `${method}: ${JSON.stringify(reply.body)}`).toBe(404);
    }
    expect((await server.request("/api/client/features", { token: made.body.secret })).status).toBe(200);
  });

  it("cannot be given to an addon by a non-member, nor can every project, and its addons are hidden", async () => {
    const webhook = {
      provider: "webhook",
      enabled: false,
      parameters: { url: "https://hooks.example.com/team" },
    };
    const mine = await server.request("/api/admin/addons", {
      method: "POST",
      body: { ...webhook, events: ["feature-created"], projects: ["hidden"] },
    });
    expect(mine.status).toBe(201);
    const everywhere = await server.request("/api/admin/addons", {
      method: "POST",
      body: { ...webhook, events: ["feature-created"], projects: [] },
    });
    const before = await fingerprint(server);
    for (const projects of [["hidden"], ["no-such-project"]]) {
      const named = await as(outsider, "/api/admin/addons", {
        method: "POST",
        body: { ...webhook, events: ["feature-created"], projects },
      });
      expect(named.status).toBe(400);
      expect(named.body.details).toEqual([
        { path: "projects.0", message: `Project ${projects[0]} does not exist` },
      ]);
    }
    for (const projects of [[], ["*"]]) {
      const all = await as(outsider, "/api/admin/addons", {
        method: "POST",
        body: { ...webhook, events: ["feature-created"], projects },
      });
      expect([all.status, all.body.name]).toEqual([403, "NoAccessError"]);
    }
    // Pointing the admin's addon for every project somewhere else would hand over the hidden project's events.
    const moved = await as(outsider, `/api/admin/addons/${everywhere.body.id}`, {
      method: "PUT",
      body: {
        ...webhook,
        parameters: { url: "https://hooks.example.com/mine" },
        events: ["feature-created"],
      },
    });
    expect(moved.status).toBe(403);
    for (const [method, path] of [
      ["GET", `/api/admin/addons/${mine.body.id}`],
      ["PUT", `/api/admin/addons/${mine.body.id}`],
      ["DELETE", `/api/admin/addons/${mine.body.id}`],
      ["GET", `/api/admin/addons/${mine.body.id}/events`],
    ] as const) {
      const reply = await as(outsider, path, {
        method,
        ...(method === "PUT" ? { body: { ...webhook, events: ["feature-created"] } } : {}),
      });
      expect(reply.status, `${method} ${path}`).toBe(404);
    }
    const listed = await as(outsider, "/api/admin/addons");
    expect(listed.body.addons.map((addon: { id: number }) => addon.id)).toEqual([everywhere.body.id]);
    expect(await fingerprint(server)).toEqual(before);
  });

  it("keeps out of the event log every event that names it or its flags, in data and preData too", async () => {
    const admin = async (path: string, method: string, body?: unknown) => {
      const reply = await server.request(path, { method, ...(body !== undefined && { body }) });
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      return reply.body;
    };
    await admin("/api/admin/api-tokens", "POST", {
      tokenName: "inside-app",
      type: "client",
      environment: "development",
      projects: ["hidden"],
    });
    await admin("/api/admin/features-batch/export", "POST", {
      features: ["secret-launch"],
      environment: "development",
    });
    const segment = await admin("/api/admin/segments", "POST", {
      name: "moving-segment",
      project: "hidden",
      constraints: [{ contextName: "userId", operator: "IN", values: ["confidential-list"] }],
    });
    await admin(`/api/admin/segments/${segment.id}`, "PUT", {
      name: "moving-segment",
      project: null,
      constraints: [],
    });

    const named = (event: unknown) => {
      const text = JSON.stringify(event);
      return text.includes('"hidden"') || text.includes("secret-") || text.includes("confidential");
    };
    for (const headers of [outsider, viewerToken]) {
      for (const body of [
        {},
        { type: "api-token-created" },
        { type: "features-exported" },
        { type: "segment-updated" },
        { query: "hidden" },
      ]) {
        const found = await as(headers, "/api/admin/events/search", { method: "POST", body });
        expect(found.status).toBe(200);
        expect(found.body.events.filter(named), JSON.stringify(body)).toEqual([]);
        expect(found.body.totalEvents).toBe(found.body.events.length);
      }
      const log = await as(headers, "/api/admin/events?limit=1000");
      expect(log.body.events.filter(named)).toEqual([]);
      expect(log.body.totalEvents).toBe(log.body.events.length);
      const moved = await as(headers, "/api/admin/events?type=segment-updated");
      expect(moved.body.events).toEqual([]);
    }
    // Its member sees them all.
    for (const type of ["api-token-created", "features-exported", "segment-updated"]) {
      const found = await as(member, "/api/admin/events/search", { method: "POST", body: { type } });
      expect(found.body.events.filter(named).length, type).toBeGreaterThan(0);
    }
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
