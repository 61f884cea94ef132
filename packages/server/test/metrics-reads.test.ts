import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, FRONTEND_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// What an admin page shows of usage: a flag's evaluations hour by hour and this hour, the
// applications SDKs announced with their instances, and an application's overview; all
// from what SDKs reported through the client and frontend APIs.

const HOUR = 3_600_000;
const hourOf = (at: number) => new Date(Math.floor(at / HOUR) * HOUR).toISOString();

let server: TestServer;
let outsider: Record<string, string>;
let member: Record<string, string>;
let now: number;

const as = (headers: Record<string, string>, path: string) => server.request(path, { token: null, headers });

async function send(path: string, token: string, body: unknown, status: number) {
  const reply = await server.request(path, { method: "POST", token, body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
}

const bucket = (stop: number, toggles: Record<string, unknown>) => ({
  start: new Date(stop - 60_000).toISOString(),
  stop: new Date(stop).toISOString(),
  toggles,
});

beforeAll(async () => {
  server = await startTestServer();
  for (const [path, body] of [
    ["/api/admin/projects", { id: "hidden", name: "Hidden", mode: "private" }],
    ["/api/admin/projects/hidden/features", { name: "secret-launch" }],
    ["/api/admin/projects/default/features", { name: "checkout" }],
    ["/api/admin/projects/default/features", { name: "never-used" }],
  ] as const) {
    const reply = await server.request(path, { method: "POST", body });
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  }
  const out = await createUser(server, { rootRole: "Editor" });
  outsider = { cookie: await login(server, out.username, out.password) };
  const inside = await createUser(server, { rootRole: "Viewer" });
  member = { cookie: await login(server, inside.username, inside.password) };
  const access = await server.request("/api/admin/projects/hidden/access", {
    method: "POST",
    body: { roles: [5], users: [inside.id], groups: [] },
  });
  expect(access.status, JSON.stringify(access.body)).toBeLessThan(300);
  const hiddenToken = await server.request("/api/admin/api-tokens", {
    method: "POST",
    body: { tokenName: "hidden-sdk", type: "client", environment: "development", projects: ["hidden"] },
  });
  expect(hiddenToken.status).toBe(201);

  now = Date.now();
  await send(
    "/api/client/register",
    CLIENT_TOKEN,
    {
      appName: "shop",
      instanceId: "shop-1",
      sdkVersion: "unleash-client-node:5.0.0",
      strategies: ["default", "flexibleRollout", "gradualRolloutUserId", "myCustom"],
      started: new Date(now).toISOString(),
      interval: 10_000,
    },
    202,
  );
  await send(
    "/api/client/metrics",
    CLIENT_TOKEN,
    {
      appName: "shop",
      instanceId: "shop-1",
      bucket: bucket(now, {
        checkout: { yes: 5, no: 2, variants: { blue: 3, red: 2 } },
        "secret-launch": { yes: 1, no: 0 },
        "ghost-flag": { yes: 1, no: 1 },
      }),
    },
    202,
  );
  await send(
    "/api/client/metrics",
    CLIENT_TOKEN,
    {
      appName: "shop",
      instanceId: "shop-1",
      bucket: bucket(now - 3 * HOUR, { checkout: { yes: 10, no: 0 } }),
    },
    202,
  );
  await send(
    "/api/frontend/client/metrics",
    FRONTEND_TOKEN,
    {
      appName: "web",
      instanceId: "browser-1",
      sdkVersion: "unleash-client-js:3.7.0",
      bucket: bucket(now, { checkout: { yes: 1, no: 0 } }),
    },
    200,
  );
  await send(
    "/api/client/register",
    hiddenToken.body.secret,
    { appName: "secret-app", strategies: [], started: new Date(now).toISOString(), interval: 10_000 },
    202,
  );
});
afterAll(() => server?.close());

describe("a flag's exposure hour by hour", () => {
  it("lists every hour asked for, per environment and application, oldest first, with zeros where nothing was reported", async () => {
    const reply = await server.request("/api/admin/client-metrics/features/checkout/raw?hoursBack=4");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: 1, maturity: "stable" });
    const hours = [3, 2, 1, 0].map((back) => hourOf(now - back * HOUR));
    expect(reply.body.data).toEqual(
      hours.flatMap((timestamp, index) => {
        const shop = { featureName: "checkout", appName: "shop", environment: "development", timestamp };
        const web = { ...shop, appName: "web" };
        if (index === 0)
          return [
            { ...shop, yes: 10, no: 0, variants: {} },
            { ...web, yes: 0, no: 0 },
          ];
        if (index === 3) {
          return [
            { ...shop, yes: 5, no: 2, variants: { blue: 3, red: 2 } },
            { ...web, yes: 1, no: 0, variants: {} },
          ];
        }
        return [
          { ...shop, yes: 0, no: 0 },
          { ...web, yes: 0, no: 0 },
        ];
      }),
    );
  });

  it("covers the last 24 hours unless told otherwise, 1 to 48", async () => {
    const day = await server.request("/api/admin/client-metrics/features/checkout/raw");
    expect(day.body.data).toHaveLength(24 * 2);
    expect(day.body.data[0].timestamp).toBe(hourOf(now - 23 * HOUR));

    const recent = await server.request("/api/admin/client-metrics/features/checkout/raw?hoursBack=3");
    expect(recent.body.data.map((entry: { yes: number }) => entry.yes)).toEqual([0, 0, 0, 0, 5, 1]);

    for (const hoursBack of ["0", "49", "soon"]) {
      const refused = await server.request(
        `/api/admin/client-metrics/features/checkout/raw?hoursBack=${hoursBack}`,
      );
      expect(refused.status, hoursBack).toBe(400);
      expect(refused.body.name).toBe("ValidationError");
    }
  });

  it("is empty for a flag nobody evaluated", async () => {
    const reply = await server.request("/api/admin/client-metrics/features/never-used/raw");
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
  });
});

describe("a flag's usage summary", () => {
  it("adds this hour's evaluations up per environment and names the applications that used it", async () => {
    const reply = await server.request("/api/admin/client-metrics/features/checkout");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      version: 1,
      maturity: "stable",
      featureName: "checkout",
      lastHourUsage: [{ environment: "development", timestamp: hourOf(now), yes: 6, no: 2 }],
      seenApplications: ["shop", "web"],
    });
    const unused = await server.request("/api/admin/client-metrics/features/never-used");
    expect(unused.body).toMatchObject({ lastHourUsage: [], seenApplications: [] });
  });

  it("is 404 for a name no flag has, even one an SDK reported", async () => {
    for (const path of [
      "/api/admin/client-metrics/features/ghost-flag",
      "/api/admin/client-metrics/features/ghost-flag/raw",
    ]) {
      const reply = await server.request(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toMatchObject({
        name: "NotFoundError",
        message: "Could not find feature flag ghost-flag",
      });
    }
  });
});

describe("an application", () => {
  it("shows how it is displayed, its instances and the flags it used", async () => {
    const reply = await server.request("/api/admin/metrics/applications/shop");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      appName: "shop",
      sdkVersion: "unleash-client-node:5.0.0",
      strategies: ["default", "flexibleRollout", "gradualRolloutUserId", "myCustom"],
      description: "",
      url: "",
      color: "",
      icon: "",
      createdAt: expect.any(String),
      usage: [{ project: "*", environments: ["development"] }],
      instances: [
        {
          instanceId: "shop-1",
          environment: "development",
          sdkVersion: "unleash-client-node:5.0.0",
          sdkType: "backend",
          clientIp: "127.0.0.1",
          lastSeen: expect.any(String),
        },
      ],
      seenToggles: [
        { name: "checkout", project: "default" },
        { name: "ghost-flag", notFound: true },
        { name: "secret-launch", project: "hidden" },
      ],
    });
    expect(Date.parse(reply.body.instances[0].lastSeen)).toBeGreaterThanOrEqual(now - 1000);

    const web = await server.request("/api/admin/metrics/applications/web");
    expect(web.body.instances).toEqual([
      expect.objectContaining({
        instanceId: "browser-1",
        sdkType: "frontend",
        sdkVersion: "unleash-client-js:3.7.0",
      }),
    ]);
  });

  it("is listed with its instances summed up: how many, their SDK versions and when one was last heard from", async () => {
    const reply = await server.request("/api/admin/metrics/applications?query=shop,web,billing");
    expect(reply.status).toBe(200);
    const shop = reply.body.applications.find((app: { appName: string }) => app.appName === "shop");
    expect(shop).toMatchObject({
      instanceCount: 1,
      sdkVersions: ["unleash-client-node:5.0.0"],
      usage: [{ project: "*", environments: ["development"] }],
    });
    const detail = (await server.request("/api/admin/metrics/applications/shop")).body;
    expect(shop.lastSeen).toBe(detail.instances[0].lastSeen);
    expect(reply.body.applications).toContainEqual(
      expect.objectContaining({ appName: "web", instanceCount: 1, sdkVersions: ["unleash-client-js:3.7.0"] }),
    );

    await server.request("/api/admin/metrics/applications/unheard", { method: "POST", body: {} });
    const unheard = await server.request("/api/admin/metrics/applications?query=unheard");
    expect(unheard.body.applications).toEqual([
      expect.objectContaining({ appName: "unheard", instanceCount: 0, sdkVersions: [], lastSeen: null }),
    ]);
    await server.request("/api/admin/metrics/applications/unheard", { method: "DELETE" });
  });

  it("has an overview per environment: instances, SDKs and what looks wrong", async () => {
    const reply = await server.request("/api/admin/metrics/applications/shop/overview");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      projects: ["default", "hidden"],
      featureCount: 3,
      environments: [
        {
          name: "development",
          instanceCount: 1,
          sdks: ["unleash-client-node:5.0.0"],
          frontendSdks: [],
          backendSdks: ["unleash-client-node:5.0.0"],
          lastSeen: expect.any(String),
          issues: { missingFeatures: ["ghost-flag"], outdatedSdks: ["unleash-client-node:5.0.0"] },
        },
      ],
      issues: { missingStrategies: ["myCustom"] },
    });
    const web = await server.request("/api/admin/metrics/applications/web/overview");
    expect(web.body.environments[0]).toMatchObject({
      frontendSdks: ["unleash-client-js:3.7.0"],
      backendSdks: [],
      issues: { missingFeatures: [], outdatedSdks: [] },
    });
  });

  it("lists the instances heard from in one environment", async () => {
    const reply = await server.request("/api/admin/metrics/instances/shop/environment/development");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      instances: [
        {
          instanceId: "shop-1",
          sdkVersion: "unleash-client-node:5.0.0",
          clientIp: "127.0.0.1",
          lastSeen: expect.any(String),
        },
      ],
    });
    const none = await server.request("/api/admin/metrics/instances/shop/environment/production");
    expect(none.body).toEqual({ instances: [] });
  });

  it("is 404 when no SDK or admin made it", async () => {
    for (const path of [
      "/api/admin/metrics/applications/nowhere",
      "/api/admin/metrics/applications/nowhere/overview",
      "/api/admin/metrics/instances/nowhere/environment/development",
    ]) {
      const reply = await server.request(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toMatchObject({
        name: "NotFoundError",
        message: "Could not find application nowhere",
      });
    }
  });

  it("can be made ahead of its SDK, shown differently and forgotten", async () => {
    const path = "/api/admin/metrics/applications/billing";
    const made = await server.request(path, {
      method: "POST",
      body: { description: "Invoices", url: "https://git.example/billing", color: "teal", icon: "receipt" },
    });
    expect(made.status).toBe(202);
    const recolored = await server.request(path, { method: "POST", body: { color: "orange" } });
    expect(recolored.status).toBe(202);
    expect((await server.request(path)).body).toMatchObject({
      appName: "billing",
      description: "Invoices",
      url: "https://git.example/billing",
      color: "orange",
      icon: "receipt",
      strategies: [],
      instances: [],
      seenToggles: [],
    });
    const listed = await server.request("/api/admin/metrics/applications?query=billing");
    expect(listed.body.applications).toEqual([
      expect.objectContaining({ appName: "billing", color: "orange" }),
    ]);

    const events = await server.request("/api/admin/events/search", {
      method: "POST",
      body: { type: "application-created" },
    });
    const billing = events.body.events.filter(
      (event: { data: { appName: string } }) => event.data.appName === "billing",
    );
    expect(billing).toHaveLength(1);
    expect(billing[0].data).toMatchObject({ appName: "billing", sdkVersion: null });

    expect((await server.request(path, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(path)).status).toBe(404);
    expect((await server.request(path, { method: "DELETE" })).status).toBe(200);
  });

  it("links only to an http(s) URL, or to nothing", async () => {
    const path = "/api/admin/metrics/applications/linked";
    const save = (url: string) => server.request(path, { method: "POST", body: { url, color: "teal" } });
    for (const url of [
      "javascript:alert(document.cookie)",
      " JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "//evil.example/",
      "ftp://files.example/app",
      "not a url",
    ]) {
      const refused = await save(url);
      expect(refused.status, url).toBe(400);
      expect(refused.body.name).toBe("ValidationError");
      expect(refused.body.details[0].path).toBe("url");
    }
    // Refused before anything is written: the application was not made.
    expect((await server.request(path)).status).toBe(404);

    expect((await save("HTTPS://git.example/linked")).status).toBe(202);
    expect((await save("javascript:alert(1)")).status).toBe(400);
    expect((await server.request(path)).body).toMatchObject({
      url: "HTTPS://git.example/linked",
      color: "teal",
    });
    // An empty url takes the link away, as the reference allows.
    expect((await save("")).status).toBe(202);
    expect((await server.request(path)).body.url).toBe("");
    await server.request(path, { method: "DELETE" });
  });

  it("cannot be changed by a Viewer", async () => {
    const viewer = await createUser(server, { rootRole: "Viewer" });
    const cookie = await login(server, viewer.username, viewer.password);
    const reply = await server.request("/api/admin/metrics/applications/shop", {
      method: "POST",
      token: null,
      headers: { cookie },
      body: { color: "red" },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.name).toBe("NoAccessError");
  });
});

describe("usage of a private project", () => {
  it("is hidden from those outside it: its flags are unknown, its usage left out", async () => {
    for (const path of [
      "/api/admin/client-metrics/features/secret-launch",
      "/api/admin/client-metrics/features/secret-launch/raw",
    ]) {
      const reply = await as(outsider, path);
      expect(reply.status, path).toBe(404);
      expect(reply.body.message).toBe("Could not find feature flag secret-launch");
    }
    const shop = await as(outsider, "/api/admin/metrics/applications/shop");
    expect(shop.body.seenToggles).toEqual([
      { name: "checkout", project: "default" },
      { name: "ghost-flag", notFound: true },
    ]);
    const overview = await as(outsider, "/api/admin/metrics/applications/shop/overview");
    expect(overview.body).toMatchObject({ projects: ["default"], featureCount: 2 });

    const listed = await as(outsider, "/api/admin/metrics/applications?query=secret-app");
    expect(listed.body.applications).toEqual([expect.objectContaining({ appName: "secret-app", usage: [] })]);
    const detail = await as(outsider, "/api/admin/metrics/applications/secret-app");
    expect(detail.body.usage).toEqual([]);
  });

  it("is shown to its members", async () => {
    const summary = await as(member, "/api/admin/client-metrics/features/secret-launch");
    expect(summary.status).toBe(200);
    expect(summary.body.lastHourUsage).toEqual([
      { environment: "development", timestamp: hourOf(now), yes: 1, no: 0 },
    ]);
    const raw = await as(member, "/api/admin/client-metrics/features/secret-launch/raw?hoursBack=1");
    expect(raw.body.data).toEqual([
      {
        featureName: "secret-launch",
        appName: "shop",
        environment: "development",
        timestamp: hourOf(now),
        yes: 1,
        no: 0,
        variants: {},
      },
    ]);
    const listed = await as(member, "/api/admin/metrics/applications?query=secret-app");
    expect(listed.body.applications[0].usage).toEqual([{ project: "hidden", environments: ["development"] }]);
    const shop = await as(member, "/api/admin/metrics/applications/shop");
    expect(shop.body.seenToggles).toContainEqual({ name: "secret-launch", project: "hidden" });
  });
});
