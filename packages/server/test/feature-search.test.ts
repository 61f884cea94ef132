import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// GET /api/admin/search/features: the reference's feature search, over real HTTP.

describe.each(databaseKinds)("the feature search (%s)", (kind) => {
  let server: TestServer;
  let fay: { id: number; cookie: string };
  let outsider: string;
  let member: string;

  const ok = async (path: string, body?: unknown, method = body === undefined ? "GET" : "POST") => {
    const reply = await server.request(path, { method, body });
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  const flagPath = (project: string, name: string) => `/api/admin/projects/${project}/features/${name}`;
  const search = async (query: string, headers?: Record<string, string>) => {
    const reply = await server.request(`/api/admin/search/features?${query}`, {
      ...(headers ? { token: null, headers } : {}),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as { features: { name: string; [key: string]: unknown }[]; total: number };
  };
  const names = async (query: string, headers?: Record<string, string>) =>
    (await search(query, headers)).features.map((flag) => flag.name);

  beforeAll(async () => {
    server = await startTestServer(kind);
    await ok("/api/admin/projects", { id: "shop", name: "Shop" });
    await ok("/api/admin/projects", { id: "hidden", name: "Hidden", mode: "private" });
    await ok("/api/admin/tag-types", { name: "team" });
    // Created in this order, a moment apart, so creation order is certain.
    for (const [name, type, description] of [
      ["checkout", "release", "The new checkout button"],
      ["pricing-test", "experiment", "Which price sells"],
      ["cache-ops", "operational", null],
      ["panic", "kill-switch", "Turns the shop off"],
      ["gone", "release", null],
    ] as const) {
      await ok(`/api/admin/projects/shop/features`, { name, type, description });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await ok("/api/admin/projects/default/features", {
      name: "elsewhere",
      description: "checkout elsewhere",
    });
    await ok("/api/admin/projects/hidden/features", { name: "hidden-launch" });
    await ok("/api/admin/features/checkout/tags", { type: "simple", value: "web" });
    await ok("/api/admin/features/pricing-test/tags", { type: "simple", value: "web" });
    await ok("/api/admin/features/pricing-test/tags", { type: "team", value: "growth" });
    await ok(flagPath("shop", "cache-ops"), { stale: true, type: "operational" }, "PUT");
    await ok(`${flagPath("shop", "panic")}/environments/development/on`, {});
    await ok(`${flagPath("shop", "pricing-test")}/lifecycle/complete`, { status: "kept" });
    await ok(`${flagPath("shop", "pricing-test")}/dependencies`, { feature: "checkout" });
    await ok(flagPath("shop", "gone"), undefined, "DELETE");
    const segment = await ok("/api/admin/segments", { name: "beta-users", constraints: [] });
    await ok(`${flagPath("shop", "checkout")}/environments/production/strategies`, {
      name: "default",
      segments: [segment.id],
    });
    await server.services.flags.markSeen(server.db, "development", [
      { name: "cache-ops", at: new Date("2024-05-01") },
    ]);

    const user = await createUser(server, { rootRole: "Editor", username: "fay" });
    fay = { id: user.id, cookie: await login(server, user.username, user.password) };
    const favorite = await server.request(`${flagPath("shop", "panic")}/favorites`, {
      method: "POST",
      token: null,
      headers: { cookie: fay.cookie },
    });
    expect(favorite.status).toBe(200);
    const out = await createUser(server, { rootRole: "Editor", username: "outsider" });
    outsider = await login(server, out.username, out.password);
    const inside = await createUser(server, { rootRole: "Viewer", username: "insider" });
    member = await login(server, inside.username, inside.password);
    await ok("/api/admin/projects/hidden/access", { roles: [5], users: [inside.id], groups: [] });
  });
  afterAll(() => server?.close());

  it("lists active flags, oldest first, with each flag's environments, tags, stage and segments", async () => {
    const all = await search("");
    expect(all.total).toBe(6);
    expect(all.features.map((flag) => flag.name)).toEqual([
      "checkout",
      "pricing-test",
      "cache-ops",
      "panic",
      "elsewhere",
      "hidden-launch",
    ]);
    const checkout = all.features[0]!;
    expect(checkout).toMatchObject({
      name: "checkout",
      project: "shop",
      type: "release",
      description: "The new checkout button",
      stale: false,
      favorite: false,
      impressionData: false,
      archivedAt: null,
      lastSeenAt: null,
      dependencyType: "parent",
      segments: ["beta-users"],
      tags: [{ type: "simple", value: "web" }],
      lifecycle: { stage: "initial" },
    });
    expect(checkout.environments).toEqual([
      expect.objectContaining({ name: "development", enabled: false, hasStrategies: false }),
      expect.objectContaining({
        name: "production",
        enabled: false,
        hasStrategies: true,
        hasEnabledStrategies: true,
        lastSeenAt: null,
      }),
    ]);
    const pricing = all.features[1]!;
    expect(pricing).toMatchObject({ dependencyType: "child", lifecycle: { stage: "completed" } });
    expect(all.features[2]).toMatchObject({ name: "cache-ops", stale: true, lastSeenAt: expect.any(String) });
  });

  it("matches any of the comma-separated terms in the name or description", async () => {
    expect(await names("query=CHECKOUT")).toEqual(["checkout", "elsewhere"]);
    expect(await names("query=price, panic")).toEqual(["pricing-test", "panic"]);
    expect(await names("query=100%25")).toEqual([]);
  });

  it("filters by project, type, state and environment status with the reference's operators", async () => {
    expect(await names("project=IS:default")).toEqual(["elsewhere"]);
    expect(await names("project=IS_NONE_OF:shop,hidden")).toEqual(["elsewhere"]);
    expect(await names("project=IS:shop&type=IS_ANY_OF:experiment,kill-switch")).toEqual([
      "pricing-test",
      "panic",
    ]);
    expect(await names("project=IS:shop&type=IS_NOT:release")).toEqual([
      "pricing-test",
      "cache-ops",
      "panic",
    ]);
    expect(await names("state=IS:stale")).toEqual(["cache-ops"]);
    expect(await names("project=IS:shop&state=IS_NOT:stale")).toEqual(["checkout", "pricing-test", "panic"]);
    expect(await names("status=development:enabled")).toEqual(["panic"]);
    expect(await names("status=development:enabled&status=production:disabled&project=IS:shop")).toEqual([
      "checkout",
      "pricing-test",
      "cache-ops",
      "panic",
    ]);
    expect(await names("createdAt=IS_BEFORE:2000-01-01")).toEqual([]);
    expect(await names("lastSeenAt=IS_ON_OR_AFTER:2024-04-30")).toEqual(["cache-ops"]);
  });

  it("filters by tag and segment with the list operators", async () => {
    expect(await names("tag=INCLUDE:simple:web")).toEqual(["checkout", "pricing-test"]);
    expect(await names("tag=INCLUDE_ALL_OF:simple:web,team:growth")).toEqual(["pricing-test"]);
    expect(await names("project=IS:shop&tag=DO_NOT_INCLUDE:team:growth")).toEqual([
      "checkout",
      "cache-ops",
      "panic",
    ]);
    expect(await names("segment=INCLUDE:beta-users")).toEqual(["checkout"]);
  });

  it("filters by lifecycle stage; archived flags only when asked for", async () => {
    expect(await names("lifecycle=IS:completed")).toEqual(["pricing-test"]);
    expect(await names("project=IS:shop&lifecycle=IS_NOT:initial")).toEqual(["pricing-test"]);
    expect(await names("lifecycle=IS:archived")).toEqual(["gone"]);
    expect(await names("archived=IS:true")).toEqual(["gone"]);
    expect(await names("project=IS:shop&lifecycle=IS_ANY_OF:completed,archived")).toEqual([
      "pricing-test",
      "gone",
    ]);
    const archived = await search("archived=IS:true");
    expect(archived.features[0]).toMatchObject({ archivedAt: expect.any(String) });
  });

  it("sorts by a column either way, ties oldest first, and by an environment's state", async () => {
    const shop = "project=IS:shop";
    expect(await names(`${shop}&sortBy=name&sortOrder=asc`)).toEqual([
      "cache-ops",
      "checkout",
      "panic",
      "pricing-test",
    ]);
    expect(await names(`${shop}&sortBy=name&sortOrder=desc`)).toEqual([
      "pricing-test",
      "panic",
      "checkout",
      "cache-ops",
    ]);
    expect(await names(`${shop}&sortOrder=desc`)).toEqual(["panic", "cache-ops", "pricing-test", "checkout"]);
    expect(await names(`${shop}&sortBy=type`)).toEqual(["pricing-test", "panic", "cache-ops", "checkout"]);
    expect(await names(`${shop}&sortBy=environment:development&sortOrder=desc`)).toEqual([
      "panic",
      "checkout",
      "pricing-test",
      "cache-ops",
    ]);
    expect(await names(`${shop}&sortBy=lastSeenAt`)).toEqual([
      "cache-ops",
      "checkout",
      "pricing-test",
      "panic",
    ]);
    // Anything else falls back to creation order, ascending, as the reference's does.
    expect(await names(`${shop}&sortBy=constructor&sortOrder=sideways`)).toEqual([
      "checkout",
      "pricing-test",
      "cache-ops",
      "panic",
    ]);
  });

  it("pages through the matches, the total counting all of them", async () => {
    const first = await search("limit=2");
    expect(first).toMatchObject({ total: 6 });
    expect(first.features.map((flag) => flag.name)).toEqual(["checkout", "pricing-test"]);
    expect(await names("limit=2&offset=4")).toEqual(["elsewhere", "hidden-launch"]);
    expect(await search("limit=2&offset=10")).toEqual({ features: [], total: 6 });
    // Out of range, as the reference: 50 to a page, from the start.
    expect((await search("limit=1000&offset=-3")).features).toHaveLength(6);
  });

  it("lists the caller's favourites first, or only them", async () => {
    const cookie = { cookie: fay.cookie };
    expect(await names("project=IS:shop&favoritesFirst=true", cookie)).toEqual([
      "panic",
      "checkout",
      "pricing-test",
      "cache-ops",
    ]);
    expect(await names("favorite=IS:true", cookie)).toEqual(["panic"]);
    expect((await search("favorite=IS:true", cookie)).features[0]).toMatchObject({ favorite: true });
    expect(await names("project=IS:shop&favorite=IS:false", cookie)).toEqual([
      "checkout",
      "pricing-test",
      "cache-ops",
    ]);
    // Tokens have no favourites.
    expect(await names("favorite=IS:true")).toEqual([]);
  });

  it("leaves out a private project's flags for those who are not its members", async () => {
    expect(await names("", { cookie: outsider })).not.toContain("hidden-launch");
    expect(await search("project=IS:hidden", { cookie: outsider })).toEqual({ features: [], total: 0 });
    expect(await names("project=IS:hidden", { cookie: member })).toEqual(["hidden-launch"]);
  });

  it("refuses SDK tokens and filters it cannot read", async () => {
    const sdk = await server.request("/api/admin/search/features", { token: CLIENT_TOKEN });
    expect(sdk.status).toBe(403);
    for (const query of ["project=shop", "tag=INCLUDE:web", "createdAt=IS_BEFORE:2024-13-45"]) {
      const reply = await server.request(`/api/admin/search/features?${query}`);
      expect(reply.status, query).toBe(400);
    }
  });
});
