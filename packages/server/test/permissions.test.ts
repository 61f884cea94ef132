import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS } from "../src/access/permissions.js";
import { CLIENT_TOKEN, FRONTEND_TOKEN, startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

// Values that reach a real project and environment, so a scoped check has a scope to judge.
const sample: Record<string, string> = { projectId: "default", environment: "development" };
const pathOf = (url: string) =>
  url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => sample[name] ?? "sample");

/** Every route the admin API serves, as the app registered it: the table the test walks. */
function adminRoutes(): { method: string; url: string; permission: readonly string[]; person: boolean }[] {
  return (
    server.routes
      .filter(
        (route: RouteOptions) =>
          (route.config?.auth ?? "admin") === "admin" && !route.url.startsWith("/docs"),
      )
      .flatMap((route) =>
        [route.method].flat().map((method) => ({
          method,
          url: route.url,
          permission: [route.config?.permission ?? []].flat() as string[],
          person: route.config?.person === true,
        })),
      )
      // HEAD follows GET; OPTIONS is the CORS preflight, answered before authentication.
      .filter((route) => route.method !== "HEAD" && route.method !== "OPTIONS")
  );
}

describe("permissions on the admin API", () => {
  it("every admin route declares a permission from the catalogue", () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThan(60);
    const undeclared = routes.filter(
      (route) =>
        route.permission.length === 0 ||
        route.permission.some((name) => !PERMISSIONS.includes(name as never)),
    );
    expect(undeclared).toEqual([]);
  });

  it.each([
    ["client", CLIENT_TOKEN],
    ["frontend", FRONTEND_TOKEN],
  ])(
    "a %s token, which holds none of them, is refused 403 NoAccessError naming the permission, before its body is read",
    async (_, token) => {
      const wrong: string[] = [];
      for (const route of adminRoutes()) {
        const reply = await server.request(pathOf(route.url), {
          method: route.method,
          token,
          ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: { not: "valid" } }),
        });
        // A person's own routes (profile, personal tokens, favourites) refuse every token for what it is.
        const named = route.person
          ? String(reply.body?.message).includes("belongs to a person")
          : route.permission.every((permission) => String(reply.body?.message).includes(permission));
        if (
          reply.status !== 403 ||
          reply.body?.name !== "NoAccessError" ||
          !named ||
          typeof reply.body.id !== "string"
        ) {
          wrong.push(`${route.method} ${route.url}: ${reply.status} ${JSON.stringify(reply.body)}`);
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it("an admin token holds every permission: no admin route refuses it but a person's own", async () => {
    const refused: string[] = [];
    for (const route of adminRoutes().filter((route) => !route.person)) {
      const reply = await server.request(pathOf(route.url), {
        method: route.method,
        ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: {} }),
      });
      if (reply.status === 403 && reply.body?.name === "NoAccessError")
        refused.push(`${route.method} ${route.url}`);
    }
    expect(refused).toEqual([]);
  });
});
