import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "./support/fingerprint.js";
import { createUser, login } from "./support/people.js";
import { EDITOR_ROOT, MEMBER } from "./support/role-expectations.js";
import {
  ADMIN_TOKEN,
  CLIENT_TOKEN,
  FRONTEND_TOKEN,
  startTestServer,
  type TestServer,
} from "./support/server.js";

// The permission matrix, generated from the route table: every admin route, asked by every
// kind of caller, in an open project, a private one and the default project (where the
// Editor's root role holds project permissions). What each caller should be allowed is
// written out here on its own, from the reference's role descriptions, rather than read
// from the code under test, so a change to a role's permissions shows up as a failure.

const OWNER = new Set([
  ...MEMBER,
  "MOVE_FEATURE_TOGGLE",
  "UPDATE_PROJECT",
  "DELETE_PROJECT",
  "READ_PROJECT_API_TOKEN",
  "CREATE_PROJECT_API_TOKEN",
  "DELETE_PROJECT_API_TOKEN",
  "UPDATE_PROJECT_SEGMENT",
  "PROJECT_USER_ACCESS_READ",
  "PROJECT_USER_ACCESS_WRITE",
  "PROJECT_DEFAULT_STRATEGY_READ",
  "PROJECT_DEFAULT_STRATEGY_WRITE",
  "PROJECT_CHANGE_REQUEST_READ",
  "PROJECT_CHANGE_REQUEST_WRITE",
  "PROJECT_SETTINGS_READ",
  "PROJECT_SETTINGS_WRITE",
  "APPROVE_CHANGE_REQUEST",
  "APPLY_CHANGE_REQUEST",
]);

const PROJECT_WIDE = new Set([...OWNER, "SKIP_CHANGE_REQUEST"]);

type Person = "admin" | "editor" | "viewer" | "owner" | "member" | "outsider";
const PEOPLE: Person[] = ["admin", "editor", "viewer", "owner", "member", "outsider"];
type Caller = {
  name: string;
  person?: Person;
  token?: "admin" | "client" | "frontend";
  auth: Record<string, string>;
};

const TEAM = "team"; // open: Owner and Member are members
const SECRET = "secret"; // private: Owner and Member are members

/** Whether a caller may pass a route's check in a project (undefined: the route names none). */
function expected(caller: Caller, route: AdminRoute, project: string | undefined): "allow" | "403" | "404" {
  if (caller.token) return caller.token === "admin" && !route.person ? "allow" : "403";
  const person = caller.person!;
  const member = person === "owner" || person === "member";
  if (project === SECRET && person !== "admin" && !member) return "404";
  if (person === "admin" || route.permission.includes("NONE")) return "allow";
  const held = (permission: string): boolean => {
    if (!PROJECT_WIDE.has(permission)) return person === "editor" && EDITOR_ROOT.has(permission);
    const role = person === "owner" ? OWNER : person === "member" ? MEMBER : undefined;
    const inProject = project === undefined || project === TEAM || project === SECRET;
    if (role?.has(permission) && inProject) return true;
    // The Editor's project permissions hold in the default project, and are asked of
    // routes without a project as "held somewhere" before the service looks closer.
    return person === "editor" && MEMBER.has(permission) && (project === undefined || project === "default");
  };
  return route.permission.some(held) ? "allow" : "403";
}

interface AdminRoute {
  method: string;
  url: string;
  permission: readonly string[];
  person: boolean;
}

let server: TestServer;
const callers: Caller[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (const [id, mode] of [
    [TEAM, "open"],
    [SECRET, "private"],
  ]) {
    const reply = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id, name: id, mode },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const flag = await server.request(`/api/admin/projects/${id}/features`, {
      method: "POST",
      body: { name: `keep-${id}` },
    });
    expect(flag.status, JSON.stringify(flag.body)).toBe(200);
  }
  const roles = {
    admin: "Admin",
    editor: "Editor",
    viewer: "Viewer",
    owner: "Viewer",
    member: "Viewer",
    outsider: "Viewer",
  } as const;
  for (const person of PEOPLE) {
    const user = await createUser(server, { rootRole: roles[person], username: person });
    const cookie = await login(server, user.username, user.password);
    const role = person === "owner" ? 4 : person === "member" ? 5 : undefined;
    for (const project of role ? [TEAM, SECRET] : []) {
      const reply = await server.request(`/api/admin/projects/${project}/access`, {
        method: "POST",
        body: { roles: [role], users: [user.id], groups: [] },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    }
    const pat = await server.request("/api/admin/user/tokens", {
      method: "POST",
      token: null,
      headers: { cookie },
      body: { description: "matrix", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(pat.status, JSON.stringify(pat.body)).toBe(201);
    callers.push({ name: `${person} (session)`, person, auth: { cookie } });
    callers.push({ name: `${person} (PAT)`, person, auth: { authorization: pat.body.secret } });
  }
  callers.push({ name: "admin token", token: "admin", auth: { authorization: ADMIN_TOKEN } });
  callers.push({ name: "client token", token: "client", auth: { authorization: CLIENT_TOKEN } });
  callers.push({ name: "frontend token", token: "frontend", auth: { authorization: FRONTEND_TOKEN } });
});
afterAll(() => server?.close());

function adminRoutes(): AdminRoute[] {
  return server.routes
    .filter(
      (route: RouteOptions) => (route.config?.auth ?? "admin") === "admin" && !route.url.startsWith("/docs"),
    )
    .flatMap((route) =>
      [route.method].flat().map((method) => ({
        method,
        url: route.url,
        permission: [route.config?.permission ?? []].flat() as string[],
        person: route.config?.person === true,
      })),
    )
    .filter((route) => route.method !== "HEAD" && route.method !== "OPTIONS");
}

const pathIn = (url: string, project: string) =>
  url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    name === "projectId" ? project : name === "environment" ? "development" : "sample",
  );

/**
 * What a caller met on a route: 403 NoAccessError, the 404 of a project hidden from them, or
 * anything else, which means the check let them through (a 400 for the body, a 404 for a
 * missing flag: the handler ran).
 */
async function outcome(caller: Caller, method: string, path: string): Promise<string> {
  const reply = await server.request(path, {
    method,
    token: null,
    headers: caller.auth,
    ...(method === "GET" || method === "DELETE" ? {} : { body: { not: "valid" } }),
  });
  if (reply.status === 403 && reply.body?.name === "NoAccessError") return "403";
  if (reply.status === 404 && /project/i.test(String(reply.body?.message))) return "404";
  if (reply.status === 401) return `401 ${reply.body?.message}`;
  return "allow";
}

describe("the permission matrix", () => {
  it("every caller is allowed or refused on every admin route as its roles say, and refusals write nothing", {
    timeout: 300_000,
  }, async () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    const cases = routes.flatMap((route) =>
      (route.url.includes(":projectId") ? [TEAM, SECRET, "default"] : [undefined]).flatMap((project) =>
        callers.map((caller) => ({ route, project, caller, expect: expected(caller, route, project) })),
      ),
    );
    // Refusals first, all of them, between two fingerprints of the database.
    const before = await fingerprint(server);
    let refused = 0;
    for (const { route, project, caller, expect: want } of cases.filter((c) => c.expect !== "allow")) {
      const path = pathIn(route.url, project ?? "default");
      const got = await outcome(caller, route.method, path);
      refused++;
      if (got !== want) wrong.push(`${caller.name} ${route.method} ${path}: expected ${want}, got ${got}`);
    }
    expect(await fingerprint(server)).toEqual(before);
    // Then what is allowed. Each project holds an active flag, so the allowed deletions and
    // archivals of whole projects are refused by the service after the check has passed.
    for (const { route, project, caller } of cases.filter((c) => c.expect === "allow")) {
      const path = pathIn(route.url, project ?? "default");
      const got = await outcome(caller, route.method, path);
      if (got === "403" || got.startsWith("401"))
        wrong.push(`${caller.name} ${route.method} ${path}: expected allow, got ${got}`);
    }
    expect(wrong).toEqual([]);
    expect(refused).toBeGreaterThan(1000);
  });
});

describe("the feature search", () => {
  it("is open to every admin-API caller, and shows each the flags of the projects they can see", async () => {
    for (const caller of callers) {
      const reply = await server.request("/api/admin/search/features?query=keep-&sortBy=name", {
        token: null,
        headers: caller.auth,
      });
      if (caller.token === "client" || caller.token === "frontend") {
        expect(reply.status, caller.name).toBe(403);
        continue;
      }
      const member = caller.person === "admin" || caller.person === "owner" || caller.person === "member";
      const seen = reply.body.features.map((flag: { name: string }) => flag.name);
      expect(seen, caller.name).toEqual(
        caller.token === "admin" || member ? [`keep-${SECRET}`, `keep-${TEAM}`] : [`keep-${TEAM}`],
      );
    }
  });
});
