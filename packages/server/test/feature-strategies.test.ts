import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

const flag = "/api/admin/projects/default/features/checkout";
const strategies = `${flag}/environments/development/strategies`;
const beta = { contextName: "plan", operator: "IN", values: ["beta"] };

describe.each(databaseKinds)("strategies and variants of a flag (%s)", (kind) => {
  let server: TestServer;
  let segment: number;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "checkout" },
    });
    const created = await server.request("/api/admin/segments", {
      method: "POST",
      body: { name: "testers", constraints: [beta] },
    });
    segment = created.body.id;
  });
  afterAll(() => server.close());

  const add = (body: unknown) => server.request(strategies, { method: "POST", body });
  const listed = async () => (await server.request(strategies)).body;
  /** What a server SDK polling development sees of the flag. */
  const sdkView = async () =>
    (
      await server.request("/api/client/features/checkout", {
        token: CLIENT_TOKEN,
        headers: { "unleash-client-spec": "5.1.0" },
      })
    ).body;

  it("adds a strategy with constraints, segments and variants, and SDKs see it", async () => {
    const added = await add({
      name: "flexibleRollout",
      title: "Half of the testers",
      parameters: { rollout: 50 },
      constraints: [beta],
      segments: [segment],
      variants: [
        {
          name: "blue",
          weight: 1000,
          weightType: "variable",
          stickiness: "default",
          payload: { type: "string", value: "b" },
        },
      ],
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      id: expect.any(String),
      name: "flexibleRollout",
      title: "Half of the testers",
      disabled: false,
      featureName: "checkout",
      sortOrder: 0,
      segments: [segment],
      constraints: [beta],
      parameters: { rollout: "50", groupId: "checkout", stickiness: "default" },
      variants: [
        {
          name: "blue",
          weight: 1000,
          weightType: "variable",
          stickiness: "default",
          payload: { type: "string", value: "b" },
        },
      ],
    });
    expect(await listed()).toEqual([added.body]);
    expect((await server.request(`${strategies}/${added.body.id}`)).body).toEqual(added.body);
    expect(await latestEvent(server, "feature-strategy-add")).toMatchObject({
      featureName: "checkout",
      environment: "development",
      data: added.body,
    });
    // SDKs get no id, title or sort order, as from the reference.
    expect((await sdkView()).strategies).toEqual([
      {
        name: "flexibleRollout",
        constraints: [beta],
        segments: [segment],
        parameters: added.body.parameters,
        variants: added.body.variants,
      },
    ]);
  });

  it("refuses unknown strategies and segments, bad constraints and weights, adding nothing", async () => {
    const before = await listed();
    expectInvalid(await add({ name: "nonexistent" }), "name");
    expectInvalid(await add({ name: "default", segments: [9999] }), "segments");
    expectInvalid(
      await add({ name: "default", constraints: [{ ...beta, operator: "LIKE" }] }),
      "constraints.0.operator",
    );
    const variant = { name: "a", weight: 600, weightType: "fix", stickiness: "default" };
    expectInvalid(await add({ name: "default", variants: [variant] }), "variants");
    // The spec requires a strategy variant's weight type and stickiness.
    const { stickiness: _, ...withoutStickiness } = variant;
    expectInvalid(await add({ name: "default", variants: [withoutStickiness] }), "variants.0.stickiness");
    expectInvalid(await add({ parameters: {} }), "name");
    // Values the engine could not read would be stored and then silently never match.
    for (const [operator, value] of [
      ["REGEX", "("],
      ["NUM_GT", "abc"],
      ["DATE_AFTER", "yesterday"],
      ["SEMVER_EQ", "x.y"],
    ]) {
      const constraint = { contextName: "userId", operator, value };
      expectInvalid(await add({ name: "default", constraints: [beta, constraint] }), "constraints.1");
    }
    const cidr = {
      contextName: "remoteAddress",
      operator: "IN_CIDR",
      values: ["10.0.0.0/8", "999.0.0.0/99"],
    };
    expectInvalid(await add({ name: "default", constraints: [cidr] }), "constraints.0");
    const inverted = { contextName: "userId", operator: "REGEX", value: "^a", inverted: true };
    expectInvalid(await add({ name: "default", constraints: [inverted] }), "constraints.0");
    for (const rollout of ["abc", "150", "-1"]) {
      expectInvalid(await add({ name: "flexibleRollout", parameters: { rollout } }), "parameters.rollout");
    }
    const unknownEnv = await server.request(`${flag}/environments/staging/strategies`, {
      method: "POST",
      body: { name: "default" },
    });
    expect(unknownEnv.status).toBe(404);
    const unknownFlag = await server.request(
      "/api/admin/projects/default/features/missing/environments/development/strategies",
      { method: "POST", body: { name: "default" } },
    );
    expect(unknownFlag.status).toBe(404);
    expect(await listed()).toEqual(before);
  });

  it("replaces a strategy with PUT and patches it with JSON Patch", async () => {
    const [first] = await listed();
    const put = await server.request(`${strategies}/${first.id}`, {
      method: "PUT",
      body: { name: "userWithId", parameters: { userIds: "ada,grace" }, constraints: [] },
    });
    expect(put.status).toBe(200);
    // What PUT leaves out, the reference keeps: title, disabled, segments, and the position.
    expect(put.body).toMatchObject({
      id: first.id,
      name: "userWithId",
      title: "Half of the testers",
      disabled: false,
      sortOrder: first.sortOrder,
      parameters: { userIds: "ada,grace" },
      segments: [segment],
      constraints: [],
      variants: [],
    });
    expect(await latestEvent(server, "feature-strategy-update")).toMatchObject({
      preData: { name: "flexibleRollout" },
      data: { name: "userWithId" },
    });

    const patched = await server.request(`${strategies}/${first.id}`, {
      method: "PATCH",
      body: [
        { op: "replace", path: "/parameters/userIds", value: "ada" },
        { op: "add", path: "/constraints/-", value: beta },
        { op: "replace", path: "/disabled", value: true },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      parameters: { userIds: "ada" },
      constraints: [beta],
      disabled: true,
    });
    // Disabled strategies are left out of what SDKs see.
    expect((await sdkView()).strategies).toEqual([]);

    const bad = await server.request(`${strategies}/${first.id}`, {
      method: "PATCH",
      body: [{ op: "replace", path: "/segments", value: [9999] }],
    });
    expectInvalid(bad, "segments");
    const missing = await server.request(`${strategies}/00000000-0000-0000-0000-000000000000`, {
      method: "PUT",
      body: { name: "default" },
    });
    expect(missing.status).toBe(404);
    expect((await listed())[0]).toEqual(patched.body);
  });

  it("reorders strategies and deletes one", async () => {
    const second = (await add({ name: "default" })).body;
    const [first] = await listed();
    expect(second.sortOrder).toBe(1);
    const reorder = (body: unknown) =>
      server.request(`${strategies}/set-sort-order`, { method: "POST", body });
    expect(
      (
        await reorder([
          { id: second.id, sortOrder: 0 },
          { id: first.id, sortOrder: 1 },
        ])
      ).status,
    ).toBe(200);
    expect((await listed()).map((s: { id: string }) => s.id)).toEqual([second.id, first.id]);
    expect(await latestEvent(server, "strategy-order-changed")).toMatchObject({ featureName: "checkout" });

    // A strategy that is not this flag's is not found here, as by its own route.
    const foreign = await reorder([{ id: "someone-else", sortOrder: 5 }]);
    expect([foreign.status, foreign.body.name]).toEqual([404, "NotFoundError"]);
    expect((await listed()).map((s: { id: string }) => s.id)).toEqual([second.id, first.id]);

    const removed = await server.request(`${strategies}/${first.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await listed()).toEqual([expect.objectContaining({ id: second.id })]);
    expect(await latestEvent(server, "feature-strategy-remove")).toMatchObject({
      preData: { id: first.id },
    });
    expect((await server.request(`${strategies}/${first.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("switching on with shouldActivateDisabledStrategies enables disabled strategies", async () => {
    const [only] = await listed();
    await server.request(`${strategies}/${only.id}`, {
      method: "PATCH",
      body: [{ op: "replace", path: "/disabled", value: true }],
    });
    await server.request(`${flag}/environments/development/on?shouldActivateDisabledStrategies=true`, {
      method: "POST",
    });
    expect((await listed())[0].disabled).toBe(false);
    expect((await sdkView()).enabled).toBe(true);
  });

  it("sets per-environment variants, sharing variable weight around fixed ones", async () => {
    const variants = `${flag}/environments/development/variants`;
    const put = await server.request(variants, {
      method: "PUT",
      body: [
        { name: "fixed", weight: 400, weightType: "fix", payload: { type: "json", value: '{"a":1}' } },
        { name: "one", weight: 0, weightType: "variable", stickiness: "userId" },
        {
          name: "two",
          weight: 0,
          weightType: "variable",
          overrides: [{ contextName: "userId", values: ["ada"] }],
        },
      ],
    });
    expect(put.status).toBe(200);
    // A stickiness left out stays out, as in the reference (SDKs read it as `default`).
    expect(put.body).toEqual({
      version: 1,
      variants: [
        { name: "fixed", weight: 400, weightType: "fix", payload: { type: "json", value: '{"a":1}' } },
        { name: "one", weight: 300, weightType: "variable", stickiness: "userId" },
        {
          name: "two",
          weight: 300,
          weightType: "variable",
          overrides: [{ contextName: "userId", values: ["ada"] }],
        },
      ],
    });
    expect((await server.request(variants)).body).toEqual(put.body);
    expect((await sdkView()).variants).toEqual(put.body.variants);
    expect((await latestEvent(server, "feature-environment-variants-updated")).preData).toEqual({
      variants: [],
    });

    const patch = await server.request(variants, {
      method: "PATCH",
      body: [{ op: "remove", path: "/2" }],
    });
    expect(patch.body.variants.map((v: { name: string; weight: number }) => [v.name, v.weight])).toEqual([
      ["fixed", 400],
      ["one", 600],
    ]);

    const before = (await server.request(variants)).body;
    expectInvalid(
      await server.request(variants, {
        method: "PUT",
        body: [{ name: "a", weight: 1001, weightType: "fix" }],
      }),
      "0.weight",
    );
    expectInvalid(
      await server.request(variants, {
        method: "PUT",
        body: [
          { name: "a", weight: 700, weightType: "fix" },
          { name: "b", weight: 700, weightType: "fix" },
        ],
      }),
      "variants",
    );
    expectInvalid(
      await server.request(variants, {
        method: "PUT",
        body: [
          { name: "a", weight: 1 },
          { name: "a", weight: 1 },
        ],
      }),
      "variants.1.name",
    );
    expectInvalid(
      await server.request(variants, {
        method: "PUT",
        body: [{ name: "a", weight: 1, payload: { type: "json", value: "{not json" } }],
      }),
      "variants.0.payload.value",
    );
    expectInvalid(await server.request(variants, { method: "PUT", body: [{ name: "a" }] }), "0.weight");
    // Fixed weights alone must make 1000.
    expectInvalid(
      await server.request(variants, {
        method: "PUT",
        body: [{ name: "a", weight: 999, weightType: "fix" }],
      }),
      "variants",
    );
    expect((await server.request(variants)).body).toEqual(before);
  });

  it("sets variants of every environment at once, or of the environments listed", async () => {
    const everywhere = await server.request(`${flag}/variants`, {
      method: "PUT",
      body: [{ name: "only", weight: 1, weightType: "variable" }],
    });
    expect(everywhere.body.variants).toEqual([{ name: "only", weight: 1000, weightType: "variable" }]);
    const environments = (await server.request(flag)).body.environments;
    expect(environments.map((env: { variants: unknown[] }) => env.variants)).toEqual([
      everywhere.body.variants,
      everywhere.body.variants,
    ]);

    // PUT as in the reference, which fills in a variable weight type and `default` stickiness.
    const batch = await server.request(`${flag}/variants-batch`, {
      method: "PUT",
      body: { environments: ["production"], variants: [{ name: "prod", weight: 5 }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.variants).toEqual([
      { name: "prod", weight: 1000, weightType: "variable", stickiness: "default" },
    ]);
    const after = (await server.request(flag)).body.environments;
    expect(after[0].variants[0].name).toBe("only");
    expect(after[1].variants).toEqual(batch.body.variants);
    const posted = await server.request(`${flag}/variants-batch`, {
      method: "POST",
      body: { environments: ["production"], variants: [{ name: "prod", weight: 5 }] },
    });
    expect(posted.body).toEqual(batch.body);
    const unknown = await server.request(`${flag}/variants-batch`, {
      method: "POST",
      body: { environments: ["staging"], variants: [] },
    });
    expect(unknown.status).toBe(404);
  });
});
