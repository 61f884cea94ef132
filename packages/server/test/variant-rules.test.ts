import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid } from "./support/fixtures.js";
import { FRONTEND_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// The spec's rules for variants: a strategy variant's name is unique within the flag (in an
// environment, across its strategies), and weights are `fix` (kept) or `variable` (sharing
// what is left of 1000), so a list of fixed weights alone is fine when it makes 1000.

const FLAGS = "/api/admin/projects/default/features";

describe.each(databaseKinds)("variant rules (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const newFlag = async (name: string) => {
    expect((await server.request(FLAGS, { method: "POST", body: { name } })).status).toBe(200);
    return `${FLAGS}/${name}`;
  };
  const variant = (name: string, weight = 500, weightType = "variable") => ({
    name,
    weight,
    weightType,
    stickiness: "default",
  });
  const strategy = (variants: unknown[]) => ({
    name: "flexibleRollout",
    parameters: { rollout: 100 },
    variants,
  });
  /** The variant the frontend API gives each of `users` for the flag, counted by name. */
  const served = async (flag: string, users: number) => {
    const counts: Record<string, number> = {};
    for (let user = 0; user < users; user += 1) {
      const reply = await server.request(`/api/frontend?userId=user-${user}`, { token: FRONTEND_TOKEN });
      const toggle = reply.body.toggles.find((entry: { name: string }) => entry.name === flag);
      counts[toggle.variant.name] = (counts[toggle.variant.name] ?? 0) + 1;
    }
    return counts;
  };

  it("takes a variant name once per strategy, and again in another strategy, as the reference does", async () => {
    const flag = await newFlag("named-once");
    const development = `${flag}/environments/development/strategies`;
    expectInvalid(
      await server.request(development, {
        method: "POST",
        body: strategy([variant("blue"), variant("blue")]),
      }),
      "variants.1.name",
    );
    for (const names of [
      ["red", "blue"],
      ["green", "blue"],
    ]) {
      const added = await server.request(development, {
        method: "POST",
        body: strategy(names.map((name) => variant(name))),
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
  });

  it("takes strategy variants of fixed weights alone that make 1000, and serves them by weight", async () => {
    const flag = await newFlag("fixed-strategy-variants");
    const strategies = `${flag}/environments/development/strategies`;
    expectInvalid(
      await server.request(strategies, {
        method: "POST",
        body: strategy([variant("most", 600, "fix"), variant("rest", 300, "fix")]),
      }),
      "variants",
    );
    const added = await server.request(strategies, {
      method: "POST",
      body: strategy([variant("everyone", 1000, "fix"), variant("no-one", 0, "fix")]),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.variants).toEqual([variant("everyone", 1000, "fix"), variant("no-one", 0, "fix")]);
    expect((await server.request(`${flag}/environments/development/on`, { method: "POST" })).status).toBe(
      200,
    );
    expect(await served("fixed-strategy-variants", 40)).toEqual({ everyone: 40 });

    const split = await server.request(`${strategies}/${added.body.id}`, {
      method: "PUT",
      body: strategy([variant("seventy", 700, "fix"), variant("thirty", 300, "fix")]),
    });
    expect(split.status).toBe(200);
    const counts = await served("fixed-strategy-variants", 200);
    expect(counts.seventy! + counts.thirty!).toBe(200);
    expect(counts.seventy).toBeGreaterThan(110);
    expect(counts.thirty).toBeGreaterThan(30);
  });

  it("takes flag variants of fixed weights alone that make 1000", async () => {
    const flag = await newFlag("fixed-flag-variants");
    const fixed = [
      { name: "a", weight: 250, weightType: "fix" },
      { name: "b", weight: 750, weightType: "fix" },
    ];
    const set = await server.request(`${flag}/environments/development/variants`, {
      method: "PUT",
      body: fixed,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.variants).toEqual(fixed);
    expectInvalid(
      await server.request(`${flag}/environments/development/variants`, {
        method: "PUT",
        body: [{ name: "a", weight: 999, weightType: "fix" }],
      }),
      "variants",
    );
    expect((await server.request(`${flag}/environments/development/on`, { method: "POST" })).status).toBe(
      200,
    );
    const counts = await served("fixed-flag-variants", 200);
    expect(counts.a! + counts.b!).toBe(200);
    expect(counts.b).toBeGreaterThan(counts.a!);
  });
});
