import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { up as sortStoredVariants } from "../src/db/migrations/0004_variants_sorted.js";
import { databaseKinds } from "./support/database.js";
import { latestEvent } from "./support/fixtures.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// What the reference rewrites in what it is sent, and what a user then sees: the admin
// answers and, above all, the document SDKs evaluate (variant order decides who gets which).

const projectFlags = (project: string) => `/api/admin/projects/${project}/features`;
const strategiesOf = (flag: string, project = "default") =>
  `${projectFlags(project)}/${flag}/environments/development/strategies`;
const variant = (name: string, weight: number, weightType = "variable") => ({
  name,
  weight,
  weightType,
  stickiness: "default",
});
const names = (variants: { name: string }[]) => variants.map((entry) => entry.name);

describe.each(databaseKinds)("stored and served as the reference does (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const createFlag = async (name: string, project = "default", extra: object = {}) =>
    expect(
      (await server.request(projectFlags(project), { method: "POST", body: { name, ...extra } })).status,
    ).toBe(200);
  const addStrategy = (flag: string, body: object, project = "default") =>
    server.request(strategiesOf(flag, project), { method: "POST", body });
  const sdkFlag = async (name: string, spec = "5.2.0") => {
    const reply = await server.request("/api/client/features", {
      token: CLIENT_TOKEN,
      headers: { "unleash-client-spec": spec },
    });
    return reply.body.features.find((feature: { name: string }) => feature.name === name);
  };
  const turn = (flag: string, state: "on" | "off") =>
    server.request(`${projectFlags("default")}/${flag}/environments/development/${state}`, {
      method: "POST",
    });

  it("serves strategy variants by name, whatever order they were sent in", async () => {
    await createFlag("checkout-colour");
    const added = await addStrategy("checkout-colour", {
      name: "flexibleRollout",
      parameters: { rollout: "100" },
      variants: [variant("blue", 400), variant("red", 400), variant("control", 200, "fix")],
    });
    expect(added.status).toBe(200);
    const served = [
      { ...variant("blue", 400), weight: 400 },
      variant("control", 200, "fix"),
      { ...variant("red", 400), weight: 400 },
    ];
    expect(added.body.variants).toEqual(served);
    expect(
      (await server.request(`${strategiesOf("checkout-colour")}/${added.body.id}`)).body.variants,
    ).toEqual(served);
    for (const spec of ["5.2.0", "4.1.0"]) {
      expect((await sdkFlag("checkout-colour", spec)).strategies[0].variants, spec).toEqual(served);
    }
    const patched = await server.request(`${strategiesOf("checkout-colour")}/${added.body.id}`, {
      method: "PATCH",
      body: [{ op: "add", path: "/variants/-", value: variant("amber", 0) }],
    });
    expect(names(patched.body.variants)).toEqual(["amber", "blue", "control", "red"]);
    expect(names((await sdkFlag("checkout-colour")).strategies[0].variants)).toEqual(
      names(patched.body.variants),
    );
  });

  it("orders names as the reference's localeCompare does in its default locale", async () => {
    await createFlag("many-variants");
    const sent = ["b", "B", "a", "A", "é", "e", "E", "10", "9", "2", "_x", "-y", "aa", "ab", "aB", "z"];
    const put = await server.request(
      `${projectFlags("default")}/many-variants/environments/development/variants`,
      {
        method: "PUT",
        body: sent.map((name) => ({ name, weight: 1, weightType: "variable" })),
      },
    );
    // Lowercase before uppercase, accents after the bare letter, punctuation before digits
    // before letters, digits as text; "aa" stays among the a's (a Danish locale would move it
    // after "z"). 1000 / 16 leaves 8 points, given to the first 8 variants as sent.
    const order = ["_x", "-y", "10", "2", "9", "a", "A", "aa", "ab", "aB", "b", "B", "e", "E", "é", "z"];
    expect(names(put.body.variants)).toEqual(order);
    const weights = Object.fromEntries(
      put.body.variants.map((entry: { name: string; weight: number }) => [entry.name, entry.weight]),
    );
    expect(sent.map((name) => weights[name])).toEqual([...Array(8).fill(63), ...Array(8).fill(62)]);
    expect(names((await sdkFlag("many-variants")).variants)).toEqual(order);

    const patched = await server.request(
      `${projectFlags("default")}/many-variants/environments/development/variants`,
      {
        method: "PATCH",
        body: [{ op: "add", path: "/-", value: { name: "0", weight: 1, weightType: "variable" } }],
      },
    );
    expect(names(patched.body.variants)).toEqual(["_x", "-y", "0", ...order.slice(2)]);
    const batch = await server.request(`${projectFlags("default")}/many-variants/variants-batch`, {
      method: "PUT",
      body: {
        environments: ["development"],
        variants: [
          { name: "Zulu", weight: 1 },
          { name: "alpha", weight: 1 },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(names((await sdkFlag("many-variants")).variants)).toEqual(["alpha", "Zulu"]);
  });

  it("serves variants stored before the upgrade by name (migration 0004)", async () => {
    await createFlag("legacy");
    const unsorted = [variant("red", 500), variant("blue", 500)];
    const strategy = (await addStrategy("legacy", { name: "default" })).body;
    const changed = { type: "feature-variants-updated", featureName: "legacy", project: "default" } as const;
    // Written past the API, as a release before 0004 stored them.
    await server.services.events.change(system("test"), async ({ db, record }) => {
      await db
        .updateTable("feature_environments")
        .set({ variants: JSON.stringify(unsorted) })
        .where("feature_name", "=", "legacy")
        .execute();
      await db
        .updateTable("feature_strategies")
        .set({ variants: JSON.stringify(unsorted) })
        .where("id", "=", strategy.id)
        .execute();
      record({ ...changed, data: { variants: unsorted }, preData: { variants: [] } });
    });
    expect(names((await sdkFlag("legacy")).variants)).toEqual(["red", "blue"]);

    await sortStoredVariants(server.db as unknown as Kysely<unknown>);
    // A server starts serving after its migrations; here a recorded change stands in for that.
    await server.services.events.change(system("test"), async ({ record }) =>
      record({ ...changed, data: { variants: [...unsorted].reverse() }, preData: { variants: unsorted } }),
    );
    const served = await sdkFlag("legacy");
    expect(names(served.variants)).toEqual(["blue", "red"]);
    expect(names(served.strategies[0].variants)).toEqual(["blue", "red"]);
    const admin = await server.request(`${projectFlags("default")}/legacy/environments/development/variants`);
    expect(names(admin.body.variants)).toEqual(["blue", "red"]);
  });

  it("keeps variants given with a new flag as sent, weights included, sorted by name", async () => {
    await createFlag("with-variants", "default", {
      variants: [
        { name: "z", weight: 1, weightType: "variable" },
        { name: "a", weight: 1, weightType: "variable" },
      ],
    });
    expect((await sdkFlag("with-variants")).variants).toEqual([
      { name: "a", weight: 1, weightType: "variable" },
      { name: "z", weight: 1, weightType: "variable" },
    ]);
  });

  it("fills in a rollout as the reference: strings, 100%, the project's stickiness, the flag as group", async () => {
    const project = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "sticky", name: "Sticky", defaultStickiness: "userId" },
    });
    expect(project.status).toBe(201);
    await server.request("/api/admin/projects/sticky/environments", {
      method: "POST",
      body: { environment: "development" },
    });
    await createFlag("sticky-rollout", "sticky");
    const filled = await addStrategy(
      "sticky-rollout",
      { name: "flexibleRollout", parameters: { rollout: 25, stickiness: "", groupId: "", beta: true } },
      "sticky",
    );
    expect(filled.status).toBe(200);
    expect(filled.body.parameters).toEqual({
      rollout: "25",
      stickiness: "userId",
      groupId: "sticky-rollout",
      beta: "true",
    });
    const bare = await addStrategy("sticky-rollout", { name: "flexibleRollout" }, "sticky");
    expect(bare.body.parameters).toEqual({ rollout: "100", stickiness: "userId", groupId: "sticky-rollout" });
    await createFlag("default-rollout");
    const plain = await addStrategy("default-rollout", {
      name: "flexibleRollout",
      parameters: { rollout: "5" },
    });
    expect(plain.body.parameters).toEqual({
      rollout: "5",
      stickiness: "default",
      groupId: "default-rollout",
    });
    expect((await sdkFlag("default-rollout")).strategies[0].parameters).toEqual(plain.body.parameters);
  });

  it("puts a new strategy after all others, and neither PUT nor PATCH moves one", async () => {
    await createFlag("ordered");
    const ids: string[] = [];
    for (const userIds of ["a", "b", "c"]) {
      ids.push((await addStrategy("ordered", { name: "userWithId", parameters: { userIds } })).body.id);
    }
    await server.request(`${strategiesOf("ordered")}/set-sort-order`, {
      method: "POST",
      body: [
        { id: ids[2], sortOrder: 0 },
        { id: ids[0], sortOrder: 5 },
        { id: ids[1], sortOrder: 10 },
      ],
    });
    const added = await addStrategy("ordered", { name: "userWithId", parameters: { userIds: "d" } });
    expect(added.body.sortOrder).toBe(11);
    const served = async () =>
      (await sdkFlag("ordered")).strategies.map(
        (entry: { parameters: { userIds: string } }) => entry.parameters.userIds,
      );
    expect(await served()).toEqual(["c", "a", "b", "d"]);
    const put = await server.request(`${strategiesOf("ordered")}/${added.body.id}`, {
      method: "PUT",
      body: { name: "userWithId", parameters: { userIds: "d" }, sortOrder: 0 },
    });
    const patch = await server.request(`${strategiesOf("ordered")}/${added.body.id}`, {
      method: "PATCH",
      body: [{ op: "replace", path: "/sortOrder", value: 0 }],
    });
    expect([put.body.sortOrder, patch.body.sortOrder]).toEqual([11, 11]);
    expect(await served()).toEqual(["c", "a", "b", "d"]);
  });

  it("switches a flag off where its last active strategy goes, and on again with a rollout after disabled ones", async () => {
    await createFlag("switch");
    await turn("switch", "on");
    expect(await sdkFlag("switch")).toMatchObject({
      enabled: true,
      strategies: [{ name: "flexibleRollout" }],
    });
    const [first] = (await server.request(strategiesOf("switch"))).body;
    await server.request(`${strategiesOf("switch")}/${first.id}`, { method: "DELETE" });
    expect(await sdkFlag("switch")).toMatchObject({ enabled: false, strategies: [] });
    expect(await latestEvent(server, "feature-environment-disabled")).toMatchObject({
      featureName: "switch",
      environment: "development",
    });

    await turn("switch", "on");
    const [second] = (await server.request(strategiesOf("switch"))).body;
    await server.request(`${strategiesOf("switch")}/${second.id}`, {
      method: "PATCH",
      body: [{ op: "replace", path: "/disabled", value: true }],
    });
    expect((await sdkFlag("switch")).enabled).toBe(false);

    await turn("switch", "on");
    const listed = (await server.request(strategiesOf("switch"))).body;
    expect(
      listed.map((entry: { disabled: boolean; sortOrder: number }) => [entry.disabled, entry.sortOrder]),
    ).toEqual([
      [true, second.sortOrder],
      [false, second.sortOrder + 1],
    ]);
    expect(await sdkFlag("switch")).toMatchObject({
      enabled: true,
      strategies: [{ name: "flexibleRollout", parameters: { rollout: "100", groupId: "switch" } }],
    });
  });

  it("gives every constraint a values list, and a strategy without segments no segment list", async () => {
    await createFlag("constrained");
    const above = { contextName: "age", operator: "NUM_GT", value: "17" };
    const segment = await server.request("/api/admin/segments", {
      method: "POST",
      body: { name: "adults", constraints: [above] },
    });
    expect(segment.body.constraints).toEqual([{ ...above, values: [] }]);
    const added = await addStrategy("constrained", { name: "default", constraints: [above] });
    expect(added.body.constraints).toEqual([{ ...above, values: [] }]);
    const patched = await server.request(`${strategiesOf("constrained")}/${added.body.id}`, {
      method: "PATCH",
      body: [
        { op: "add", path: "/constraints/-", value: { contextName: "age", operator: "NUM_LT", value: "65" } },
      ],
    });
    expect(patched.body.constraints[1]).toEqual({
      contextName: "age",
      operator: "NUM_LT",
      value: "65",
      values: [],
    });
    const served = await sdkFlag("constrained");
    expect(served.strategies[0]).not.toHaveProperty("segments");
    expect(served.strategies[0].constraints).toEqual(patched.body.constraints);
  });
});
