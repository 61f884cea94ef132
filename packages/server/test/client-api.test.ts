import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { frontendApiContext } from "@signalbox/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenActor } from "../src/access/actor.js";
import { system } from "../src/access/actor.js";
import { FrontendService } from "../src/domains/frontend-api/service.js";
import { databaseKinds } from "./support/database.js";
import {
  ADMIN_TOKEN,
  CLIENT_TOKEN,
  FRONTEND_TOKEN,
  startTestServer,
  type TestServer,
} from "./support/server.js";

// The admin API has its own tests; here flags are written straight to the tables
// (with an event, as every write has) so the SDK API is tested on its own.
async function seed(server: TestServer) {
  await server.services.events.change(system("test"), async ({ db, record }) => {
    await db
      .insertInto("features")
      .values([
        { name: "checkout", project: "default", description: "new checkout", impression_data: true },
        { name: "banner", project: "default", description: null },
        { name: "gone", project: "default", description: null, archived_at: new Date() },
        { name: "child", project: "default", description: null },
      ])
      .execute();
    await db
      .insertInto("segments")
      .values({
        name: "beta",
        constraints: JSON.stringify([{ contextName: "plan", operator: "IN", values: ["beta"] }]),
      })
      .execute();
    const segment = await db.selectFrom("segments").select("id").executeTakeFirstOrThrow();
    await db
      .insertInto("feature_environments")
      .values([
        {
          feature_name: "checkout",
          environment: "development",
          enabled: true,
          variants: JSON.stringify([
            { name: "blue", weight: 1000, stickiness: "default", weightType: "variable" },
          ]),
        },
        { feature_name: "banner", environment: "development", enabled: true },
        { feature_name: "child", environment: "development", enabled: true },
        { feature_name: "banner", environment: "production", enabled: false },
      ])
      .execute();
    await db
      .insertInto("feature_strategies")
      .values([
        {
          id: "s1",
          feature_name: "checkout",
          project_name: "default",
          environment: "development",
          strategy_name: "flexibleRollout",
          parameters: JSON.stringify({ rollout: 100, stickiness: "default", groupId: "checkout" }),
          segments: [segment.id],
        },
        {
          id: "s2",
          feature_name: "banner",
          project_name: "default",
          environment: "development",
          strategy_name: "default",
          disabled: true,
        },
        {
          id: "s3",
          feature_name: "banner",
          project_name: "default",
          environment: "development",
          strategy_name: "userWithId",
          parameters: JSON.stringify({ userIds: "u1,u2" }),
        },
      ])
      .execute();
    await db
      .insertInto("feature_dependencies")
      .values({ parent: "banner", child: "child", enabled: true })
      .execute();
    await db
      .insertInto("feature_tags")
      .values({ feature_name: "banner", tag_type: "simple", tag_value: "web" })
      .execute();
    // Written straight to the tables: the event only has to move the revision on.
    record({ type: "feature-environment-enabled", featureName: "checkout", project: "default" });
  });
}

describe.each(databaseKinds)("SDK API (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await seed(server);
  });
  afterAll(() => server.close());

  const features = (query = "", headers: Record<string, string> = {}, token = CLIENT_TOKEN) =>
    server.request(`/api/client/features${query}`, {
      token,
      headers: { "unleash-client-spec": "5.0.0", ...headers },
    });

  it("lists the environment's active flags with segments apart and disabled strategies left out", async () => {
    const reply = await features();
    expect(reply.status).toBe(200);
    expect(reply.body.version).toBe(2);
    expect(reply.body.features.map((f: { name: string }) => f.name)).toEqual(["banner", "checkout", "child"]);
    const checkout = reply.body.features.find((f: { name: string }) => f.name === "checkout");
    expect(checkout).toMatchObject({
      enabled: true,
      impressionData: true,
      project: "default",
      variants: [{ name: "blue", weight: 1000 }],
      strategies: [
        {
          name: "flexibleRollout",
          parameters: { rollout: "100", stickiness: "default", groupId: "checkout" },
        },
      ],
    });
    expect(checkout.strategies[0].segments).toHaveLength(1);
    expect(reply.body.segments).toEqual([
      {
        id: checkout.strategies[0].segments[0],
        name: "beta",
        constraints: [expect.objectContaining({ contextName: "plan" })],
      },
    ]);
    const banner = reply.body.features.find((f: { name: string }) => f.name === "banner");
    expect(banner.strategies.map((s: { name: string }) => s.name)).toEqual(["userWithId"]);
    const child = reply.body.features.find((f: { name: string }) => f.name === "child");
    expect(child.dependencies).toEqual([{ feature: "banner", enabled: true, variants: [] }]);
  });

  it("inlines segment constraints for SDKs older than client specification 4.2.2, as the spec says", async () => {
    for (const older of ["4.2.1", "4.2.0", "4.1.9", "3.9.0"]) {
      const reply = await features("", { "unleash-client-spec": older });
      const checkout = reply.body.features.find((f: { name: string }) => f.name === "checkout");
      expect(checkout.strategies[0].constraints, older).toEqual([
        expect.objectContaining({ contextName: "plan", operator: "IN" }),
      ]);
      expect(checkout.strategies[0].segments).toBeUndefined();
      expect(reply.body.segments).toBeUndefined();
      expect(reply.body.query.inlineSegmentConstraints).toBe(true);
    }
    for (const newer of ["4.2.2", "4.3.0", "5.0.0", "10.0.0"]) {
      const reply = await features("", { "unleash-client-spec": newer });
      const checkout = reply.body.features.find((f: { name: string }) => f.name === "checkout");
      expect(checkout.strategies[0], newer).toMatchObject({
        constraints: [],
        segments: [expect.any(Number)],
      });
      expect(reply.body.query.inlineSegmentConstraints).toBe(false);
    }
    expect((await features("", { "unleash-client-spec": "banana" })).status).toBe(400);
  });

  it("filters by name prefix and tag, and the token's environment wins over the query", async () => {
    expect((await features("?namePrefix=ch")).body.features.map((f: { name: string }) => f.name)).toEqual([
      "checkout",
      "child",
    ]);
    expect((await features("?tag=simple:web")).body.features.map((f: { name: string }) => f.name)).toEqual([
      "banner",
    ]);
    const pinned = await features("?environment=production");
    expect(pinned.body.query.environment).toBe("development");
    const admin = await features("?environment=production", {}, ADMIN_TOKEN);
    expect(admin.body.features.find((f: { name: string }) => f.name === "banner").enabled).toBe(false);
  });

  it("answers If-None-Match with 304 until a change, then with the new document", async () => {
    const first = await features();
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    expect((await features("", { "if-none-match": etag })).status).toBe(304);
    await server.services.events.change(system("test"), async ({ db, record }) => {
      await db
        .updateTable("feature_environments")
        .set({ enabled: false })
        .where("feature_name", "=", "checkout")
        .execute();
      record({ type: "feature-environment-disabled", featureName: "checkout" });
    });
    const changed = await features("", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.body.features.find((f: { name: string }) => f.name === "checkout").enabled).toBe(false);
  });

  it("gzips the listing for SDKs that accept it, the same bytes under the same ETag", async () => {
    // fetch would decompress on its own; the raw bytes are what an SDK's HTTP client gets.
    const raw = (acceptEncoding: string) =>
      new Promise<{ headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
        const url = new URL("/api/client/features", server.url);
        httpRequest(
          url,
          { headers: { authorization: CLIENT_TOKEN, "accept-encoding": acceptEncoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
          },
        )
          .on("error", reject)
          .end();
      });
    const setDescription = (description: string | null) =>
      server.services.events.change(system("test"), async ({ db, record }) => {
        await db.updateTable("features").set({ description }).where("name", "=", "banner").execute();
        record({ type: "feature-stale-off", featureName: "banner", data: { stale: false } });
      });
    await setDescription("A banner on top of every page. ".repeat(20));
    const plain = await raw("identity");
    expect(plain.bytes.length).toBeGreaterThan(1024);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const zipped = await raw("gzip, deflate, br");
    expect(zipped.headers).toMatchObject({ "content-encoding": "gzip", vary: "accept-encoding" });
    expect(gunzipSync(zipped.bytes)).toEqual(plain.bytes);
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect((await raw("gzip;q=0")).headers["content-encoding"]).toBeUndefined();
    await setDescription(null);
  });

  it("serves one flag, 404 for an unknown one, and refuses frontend tokens", async () => {
    const one = await server.request("/api/client/features/banner", { token: CLIENT_TOKEN });
    expect(one.status).toBe(200);
    expect(one.body.name).toBe("banner");
    expect((await server.request("/api/client/features/nope", { token: CLIENT_TOKEN })).status).toBe(404);
    expect((await features("", {}, FRONTEND_TOKEN)).status).toBe(403);
    expect((await server.request("/api/client/features", { token: null })).status).toBe(401);
  });

  it("speaks the delta protocol: hydration, then only what changed, then 304", async () => {
    const hydration = await server.request("/api/client/delta", { token: CLIENT_TOKEN });
    expect(hydration.status).toBe(200);
    expect(hydration.body.events).toHaveLength(1);
    expect(hydration.body.events[0]).toMatchObject({ type: "hydration" });
    const etag = hydration.headers.get("etag")!;
    expect(
      (await server.request("/api/client/delta", { token: CLIENT_TOKEN, headers: { "if-none-match": etag } }))
        .status,
    ).toBe(304);

    await server.services.events.change(system("test"), async ({ db, record }) => {
      await db.updateTable("features").set({ archived_at: new Date() }).where("name", "=", "child").execute();
      await db.updateTable("features").set({ description: "changed" }).where("name", "=", "banner").execute();
      record({ type: "feature-archived", featureName: "child" });
    });
    const delta = await server.request("/api/client/delta", {
      token: CLIENT_TOKEN,
      headers: { "if-none-match": etag },
    });
    expect(delta.status).toBe(200);
    expect(delta.body.events.map((e: { type: string }) => e.type).sort()).toEqual([
      "feature-removed",
      "feature-updated",
    ]);
    expect(delta.headers.get("etag")).not.toBe(etag);
  });

  it("records registrations and metrics: applications listing and lastSeenAt", async () => {
    const register = await server.request("/api/client/register", {
      method: "POST",
      token: CLIENT_TOKEN,
      body: {
        appName: "shop",
        instanceId: "i1",
        sdkVersion: "unleash-client-node:6.12.1",
        strategies: ["default"],
        started: new Date().toISOString(),
        interval: 10000,
      },
    });
    expect(register.status).toBe(202);
    const metrics = await server.request("/api/client/metrics", {
      method: "POST",
      token: CLIENT_TOKEN,
      body: {
        appName: "shop",
        instanceId: "i1",
        bucket: {
          start: new Date().toISOString(),
          stop: new Date().toISOString(),
          toggles: { banner: { yes: 3, no: 1, variants: {} } },
        },
      },
    });
    expect(metrics.status).toBe(202);
    await server.request("/api/client/metrics", {
      method: "POST",
      token: CLIENT_TOKEN,
      body: {
        appName: "shop",
        bucket: {
          start: new Date().toISOString(),
          stop: new Date().toISOString(),
          toggles: { banner: { yes: 2, no: 0 } },
        },
      },
    });

    const apps = await server.request("/api/admin/metrics/applications?query=nothing,sho");
    expect(apps.body).toEqual({
      total: 1,
      applications: [
        expect.objectContaining({
          appName: "shop",
          sdkVersion: "unleash-client-node:6.12.1",
          strategies: ["default"],
          createdAt: expect.any(String),
          usage: [{ project: "*", environments: ["development"] }],
        }),
      ],
    });
    const counts = await server.db
      .selectFrom("client_metrics")
      .selectAll()
      .where("feature_name", "=", "banner")
      .execute();
    expect(counts.map((row) => [row.yes, row.no])).toEqual([[5, 1]]);
    const seen = await server.db
      .selectFrom("feature_environments")
      .select("last_seen_at")
      .where("feature_name", "=", "banner")
      .where("environment", "=", "development")
      .executeTakeFirstOrThrow();
    expect(seen.last_seen_at).toBeInstanceOf(Date);
    const created = await server.request("/api/admin/events/search", {
      method: "POST",
      body: { type: "application-created" },
    });
    expect(created.body.events).toHaveLength(1);
    expect(
      (
        await server.request("/api/client/metrics", {
          method: "POST",
          token: CLIENT_TOKEN,
          body: { bucket: {} },
        })
      ).status,
    ).toBe(400);
  });

  it("keeps hourly counts and SDK instances for 48 hours, then prunes them", async () => {
    const old = new Date(Date.now() - 49 * 3_600_000);
    await server.db
      .insertInto("client_metrics")
      .values({
        feature_name: "banner",
        app_name: "shop",
        environment: "development",
        timestamp: old,
        yes: 1,
        no: 0,
        variants: "{}",
      })
      .execute();
    await server.db
      .insertInto("client_instances")
      .values({ app_name: "shop", instance_id: "gone", environment: "development", last_seen: old })
      .execute();
    const before = await server.db.selectFrom("client_metrics").select("timestamp").execute();
    expect(before).toHaveLength(2);

    await server.services.metrics.prune();
    const metrics = await server.db.selectFrom("client_metrics").select("timestamp").execute();
    expect(metrics.map((row) => row.timestamp.getTime())).toEqual(
      before.map((row) => row.timestamp.getTime()).filter((time) => time !== old.getTime()),
    );
    const instances = await server.db.selectFrom("client_instances").select("instance_id").execute();
    expect(instances.map((row) => row.instance_id)).not.toContain("gone");
    expect(instances.length).toBeGreaterThan(0);
  });

  it("evaluates for browser SDKs on the frontend API, with CORS", async () => {
    const reply = await server.request("/api/frontend?userId=u1&plan=beta", {
      token: FRONTEND_TOKEN,
      headers: { origin: "https://app.example" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
    expect(reply.body.toggles.map((t: { name: string }) => t.name)).toContain("banner");
    const post = await server.request("/api/frontend", {
      method: "POST",
      token: FRONTEND_TOKEN,
      body: { context: { userId: "u3" } },
    });
    expect(post.body.toggles.map((t: { name: string }) => t.name)).not.toContain("banner");
    expect((await server.request("/api/frontend", { token: CLIENT_TOKEN })).status).toBe(403);
    const preflight = await server.request("/api/frontend", {
      method: "OPTIONS",
      token: null,
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers browsers' usage reports with CORS, and no other API", async () => {
    const browser = { origin: "https://app.example" };
    const preflight = await server.request("/api/frontend/client/metrics", {
      method: "OPTIONS",
      token: null,
      headers: { ...browser, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    const report = await server.request("/api/frontend/client/metrics", {
      method: "POST",
      token: FRONTEND_TOKEN,
      headers: browser,
      body: {
        appName: "web",
        bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: {} },
      },
    });
    expect(report.status).toBe(200);
    expect(report.headers.get("access-control-allow-origin")).toBe("*");
    for (const path of ["/api/admin/features", "/api/client/features"]) {
      const refused = await server.request(path, {
        method: "OPTIONS",
        token: null,
        headers: {
          ...browser,
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization",
        },
      });
      expect(refused.status, path).toBe(404);
      expect(refused.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });

  it("evaluates a REGEX constraint against a long hostile input at once, in RE2", async () => {
    await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "hostile" },
    });
    const strategy = await server.request(
      "/api/admin/projects/default/features/hostile/environments/development/strategies",
      {
        method: "POST",
        body: {
          name: "default",
          constraints: [{ contextName: "userId", operator: "REGEX", value: "^(a+)+$" }],
        },
      },
    );
    expect(strategy.status).toBe(200);
    await server.request("/api/admin/projects/default/features/hostile/environments/development/on", {
      method: "POST",
    });
    const ask = async (userId: string) =>
      (
        await server.request("/api/frontend", {
          method: "POST",
          token: FRONTEND_TOKEN,
          body: { context: { userId } },
        })
      ).body.toggles.map((toggle: { name: string }) => toggle.name);
    expect(await ask(`${"a".repeat(10_000)}!`)).not.toContain("hostile");
    expect(await ask("a".repeat(10_000))).toContain("hostile");
  });

  it("answers an unknown path 404 whatever the token", async () => {
    for (const token of [CLIENT_TOKEN, FRONTEND_TOKEN, ADMIN_TOKEN, null]) {
      const reply = await server.request("/api/client/no-such-path", { token });
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ name: "NotFoundError" });
    }
  });
});

describe.each(databaseKinds)("the frontend API after changes (%s)", (kind) => {
  const SCOPED_TOKEN = "default:development.test-scoped-frontend-secret";
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await seed(server);
    await server.services.tokens.ensure(system("test"), "frontend", [SCOPED_TOKEN]);
  });
  afterAll(() => server.close());

  const change = (work: (db: TestServer["db"]) => Promise<unknown>) =>
    server.services.events.change(system("test"), async ({ db, record }) => {
      await work(db);
      // Written straight to the tables: the event only has to move the revision on.
      record({ type: "feature-environment-enabled", featureName: "checkout", project: "default" });
    });

  /**
   * What the service answers, after each change made from the snapshot before it, is what
   * a snapshot compiled whole from the same content answers, in the same order.
   */
  async function expectAsIfCompiledWhole() {
    for (const token of [FRONTEND_TOKEN, SCOPED_TOKEN]) {
      const served = await server.request("/api/frontend?userId=u1&sessionId=s1&plan=beta", { token });
      expect(served.status).toBe(200);
      const actor = (await server.services.tokens.resolve(token)) as TokenActor;
      const context = frontendApiContext({ userId: "u1", sessionId: "s1", plan: "beta" }, "127.0.0.1");
      const whole = await new FrontendService(server.services.clientFeatures).evaluate(actor, context);
      expect(served.body).toEqual(JSON.parse(whole.toString()));
    }
  }

  it("answers as a whole compile would after updates, segment changes, new, moved and archived flags", async () => {
    await expectAsIfCompiledWhole();
    await change((db) =>
      db
        .updateTable("feature_strategies")
        .set({ parameters: JSON.stringify({ rollout: 0, stickiness: "default", groupId: "checkout" }) })
        .where("id", "=", "s1")
        .execute(),
    );
    await expectAsIfCompiledWhole();
    await change((db) =>
      db
        .updateTable("segments")
        .set({ constraints: JSON.stringify([{ contextName: "plan", operator: "IN", values: ["gamma"] }]) })
        .execute(),
    );
    await expectAsIfCompiledWhole();
    await change(async (db) => {
      await db.insertInto("features").values({ name: "aardvark", project: "default" }).execute();
      await db
        .insertInto("feature_environments")
        .values({ feature_name: "aardvark", environment: "development", enabled: true })
        .execute();
    });
    await expectAsIfCompiledWhole();
    const names = await server.request("/api/frontend?userId=u1", { token: FRONTEND_TOKEN });
    expect(names.body.toggles[0].name).toBe("aardvark");
    await change(async (db) => {
      await db.insertInto("projects").values({ id: "other", name: "Other" }).execute();
      await db.updateTable("features").set({ project: "other" }).where("name", "=", "aardvark").execute();
    });
    await expectAsIfCompiledWhole();
    const scoped = await server.request("/api/frontend?userId=u1", { token: SCOPED_TOKEN });
    expect(scoped.body.toggles.map((t: { name: string }) => t.name)).not.toContain("aardvark");
    await change((db) =>
      db.updateTable("features").set({ archived_at: new Date() }).where("name", "=", "banner").execute(),
    );
    await expectAsIfCompiledWhole();
  });
});

describe("the frontend API's evaluation context", () => {
  it("is the reference's: the environment and appName sent or its defaults, the server's clock for dates", () => {
    const before = Date.now();
    const bare = frontendApiContext({ currentTime: "2020-01-01T00:00:00.000Z", userId: "u1" }, "10.0.0.1");
    expect(bare).toMatchObject({
      appName: "frontend-api",
      environment: "default",
      userId: "u1",
      remoteAddress: "10.0.0.1",
      properties: { currentTime: "2020-01-01T00:00:00.000Z" },
    });
    expect((bare.currentTime as Date).getTime()).toBeGreaterThanOrEqual(before);
    expect(frontendApiContext({ environment: "staging", appName: "shop" }, "10.0.0.1")).toMatchObject({
      environment: "staging",
      appName: "shop",
    });
  });
});
