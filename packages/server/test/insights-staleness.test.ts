import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { databaseKinds } from "./support/database.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// The potential-staleness job, run by hand with the clock it is given, and the lifecycle a
// flag goes through as the reference records it.

const DAY = 86_400_000;
const AGING = "/api/admin/projects/aging";
const FEATURES = "/api/admin/projects/default/features";

describe.each(databaseKinds)("potentially stale flags and the lifecycle (%s)", (kind) => {
  let server: TestServer;
  const ok = async (method: string, path: string, body?: unknown) => {
    const reply = await server.request(path, { method, body });
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  /** A flag of the aging project, `days` old. */
  const agedFlag = async (name: string, type: string, days: number) => {
    await ok("POST", `${AGING}/features`, { name, type });
    await sql`update features set created_at = ${new Date(Date.now() - days * DAY)} where name = ${name}`.execute(
      server.db,
    );
  };
  const marked = async () =>
    (
      await server.db
        .selectFrom("features")
        .select("name")
        .where("project", "=", "aging")
        .where("potentially_stale", "=", true)
        .orderBy("name")
        .execute()
    ).map((row) => row.name);
  const announced = async () =>
    (
      await server.db
        .selectFrom("events")
        .select(["feature_name", "project", "created_by", "created_by_user_id"])
        .where("type", "=", "feature-potentially-stale-on")
        .orderBy("id")
        .execute()
    ).map((event) => event.feature_name);
  const run = async (now?: Date) => (await server.services.staleness.run(now)).sort();

  beforeAll(async () => {
    server = await startTestServer(kind);
    await ok("POST", "/api/admin/projects", { id: "aging", name: "Aging" });
    await agedFlag("release-old", "release", 41);
    await agedFlag("release-young", "release", 39);
    await agedFlag("experiment-old", "experiment", 40.01);
    await agedFlag("operational-old", "operational", 8);
    await agedFlag("operational-young", "operational", 3);
    await agedFlag("kill-switch-ancient", "kill-switch", 400);
    await agedFlag("permission-ancient", "permission", 400);
    await agedFlag("stale-old", "release", 60);
    await ok("POST", `${AGING}/stale`, { features: ["stale-old"], stale: true });
    await agedFlag("archived-old", "release", 60);
    await ok("POST", `${AGING}/archive`, { features: ["archived-old"] });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("marks the active, not stale flags past their type's lifetime, each with one event", async () => {
    expect(await run()).toEqual(["experiment-old", "operational-old", "release-old"]);
    expect(await marked()).toEqual(["experiment-old", "operational-old", "release-old"]);
    const events = await server.db
      .selectFrom("events")
      .select(["feature_name", "project", "created_by", "created_by_user_id"])
      .where("type", "=", "feature-potentially-stale-on")
      .orderBy("feature_name")
      .execute();
    expect(events).toEqual(
      ["experiment-old", "operational-old", "release-old"].map((name) => ({
        feature_name: name,
        project: "aging",
        created_by: "staleness-job",
        created_by_user_id: -1337,
      })),
    );

    // A second run finds nothing new and announces nothing again.
    expect(await run()).toEqual([]);
    expect(await announced()).toHaveLength(3);

    // Two days on, the 39-day-old release flag is overdue too.
    expect(await run(new Date(Date.now() + 2 * DAY))).toEqual(["release-young"]);
    expect(await announced()).toHaveLength(4);
  });

  it("shows the marks in the listing, the project's health and the feature search", async () => {
    const { projects } = (await server.request("/api/admin/projects")).body;
    // 8 active flags: 1 stale, 4 potentially stale: 100 − 12.5 − 50.
    expect(projects.find((project: { id: string }) => project.id === "aging")).toMatchObject({
      featureCount: 8,
      staleFeatureCount: 1,
      potentiallyStaleFeatureCount: 4,
      health: 38,
    });
    const search = await server.request(
      "/api/admin/search/features?project=IS:aging&state=IS:potentially-stale",
    );
    expect(search.body.features.map((entry: { name: string }) => entry.name).sort()).toEqual([
      "experiment-old",
      "operational-old",
      "release-old",
      "release-young",
    ]);
  });

  it("takes the mark away when the type or the staleness changes, and judges the flag again", async () => {
    // A kill switch never goes stale.
    await ok("PUT", `${AGING}/features/release-old`, { type: "kill-switch" });
    // An operational flag made an experiment (40 days) is no longer overdue at 8 days.
    await ok("PATCH", `${AGING}/features/operational-old`, [
      { op: "replace", path: "/type", value: "experiment" },
    ]);
    // Marked stale by hand: stale, not potentially so.
    await ok("POST", `${AGING}/stale`, { features: ["experiment-old"], stale: true });
    // A release flag made an experiment is still overdue: unmarked, then marked again.
    await ok("PUT", `${AGING}/features/release-young`, { type: "experiment" });
    expect(await marked()).toEqual([]);
    const before = (await announced()).length;

    expect(await run(new Date(Date.now() + 2 * DAY))).toEqual(["release-young"]);
    expect(await marked()).toEqual(["release-young"]);
    expect((await announced()).slice(before)).toEqual(["release-young"]);

    // Unmarked stale, the experiment is judged again on the next run.
    await ok("POST", `${AGING}/stale`, { features: ["experiment-old"], stale: false });
    expect(await run()).toEqual(["experiment-old"]);
    // A description alone changes nothing.
    await ok("PUT", `${AGING}/features/experiment-old`, { description: "still here" });
    expect(await marked()).toEqual(["experiment-old", "release-young"]);
  });

  it("marks a flag once when instances run the job at the same time", async () => {
    await agedFlag("raced", "operational", 30);
    const runs = await Promise.all([run(), run(), run()]);
    expect(runs.flat()).toEqual(["raced"]);
    expect((await announced()).filter((name) => name === "raced")).toHaveLength(1);
  });

  it("stops when the server stops and runs again when started", async () => {
    await agedFlag("restarted", "operational", 30);
    await server.services.staleness.stop();
    server.services.staleness.start(3_600_000);
    await server.services.staleness.stop();
    expect(await marked()).toContain("restarted");
  });
});

describe.each(databaseKinds)("the lifecycle of a flag (%s)", (kind) => {
  let server: TestServer;
  const prodToken = "*:production.lifecycle-insights";

  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.services.tokens.ensure(system("test"), "client", [prodToken]);
  });

  afterAll(async () => {
    await server?.close();
  });

  const stages = async (name: string) =>
    ((await server.request(`${FEATURES}/${name}/lifecycle`)).body as { stage: string }[]).map(
      (entry) => entry.stage,
    );
  const current = async (name: string) => (await server.request(`${FEATURES}/${name}`)).body.lifecycle?.stage;
  const use = (name: string, token: string) =>
    server.request("/api/client/metrics", {
      method: "POST",
      token,
      body: {
        appName: "till",
        instanceId: "i-1",
        bucket: {
          start: new Date().toISOString(),
          stop: new Date().toISOString(),
          toggles: { [name]: { yes: 2, no: 1, variants: {} } },
        },
      },
    });

  it("goes initial → pre-live (used anywhere) → live (used in production while on there)", async () => {
    await server.request(FEATURES, { method: "POST", body: { name: "till-v2" } });
    expect(await stages("till-v2")).toEqual(["initial"]);
    expect((await use("till-v2", CLIENT_TOKEN)).status).toBe(202);
    expect(await stages("till-v2")).toEqual(["initial", "pre-live"]);
    // Used in production while switched off there: not live.
    expect((await use("till-v2", prodToken)).status).toBe(202);
    expect(await stages("till-v2")).toEqual(["initial", "pre-live"]);
    expect(await current("till-v2")).toBe("pre-live");
    await server.request(`${FEATURES}/till-v2/environments/production/on`, { method: "POST" });
    await use("till-v2", prodToken);
    expect(await stages("till-v2")).toEqual(["initial", "pre-live", "live"]);
    expect(await current("till-v2")).toBe("live");
  });

  it("goes live in production directly, pre-live recorded with it", async () => {
    await server.request(FEATURES, { method: "POST", body: { name: "till-v3" } });
    await server.request(`${FEATURES}/till-v3/environments/production/on`, { method: "POST" });
    await use("till-v3", prodToken);
    expect(await stages("till-v3")).toEqual(["initial", "pre-live", "live"]);
  });

  it("goes completed, then archived; revived, it starts again at initial", async () => {
    await server.request(`${FEATURES}/till-v2/lifecycle/complete`, {
      method: "POST",
      body: { status: "kept" },
    });
    expect(await current("till-v2")).toBe("completed");
    await server.request(`${FEATURES}/till-v2`, { method: "DELETE" });
    expect(await stages("till-v2")).toEqual(["initial", "pre-live", "live", "completed", "archived"]);
    expect((await server.request("/api/admin/archive/revive/till-v2", { method: "POST" })).status).toBe(200);
    expect(await stages("till-v2")).toEqual(["initial"]);
    expect(await current("till-v2")).toBe("initial");
  });
});
