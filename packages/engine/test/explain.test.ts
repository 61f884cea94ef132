import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type ClientFeatures,
  type CompileOptions,
  type Context,
  compile,
  type Evaluation,
  type FeatureDefinition,
  type Snapshot,
} from "../src/index.js";
import { junkContext, junkFeature, junkSegments } from "./junk.js";

const answer = ({ name, enabled, impressionData, variant }: Evaluation) => ({
  name,
  enabled,
  impressionData,
  variant,
});

// Thousands of generated cases, run synchronously: a timer cannot stop them, and a deadline
// would only measure how loaded the machine is. They end when the last case has run.
describe("an explanation answers as evaluate does", { timeout: 0 }, () => {
  // Random stickiness and gradualRolloutRandom draw numbers: with one fixed draw, the two
  // paths must agree exactly, whatever order they draw in.
  beforeEach(() => {
    vi.spyOn(Math, "random").mockReturnValue(0.37);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const names = ["a", "b", "c", "d", "e"];
  const fields = ["userId", "sessionId", "remoteAddress", "currentTime", "tenant", "version", "age"];
  const texts = ["acme", "ACME", "globex", "u1", "u2", "10.1.2.3", "1.2.3", "2.0.0-beta.1", "42", ""];
  const rules = fc.record({
    contextName: fc.constantFrom(...fields),
    operator: fc.constantFrom(
      "IN",
      "NOT_IN",
      "STR_STARTS_WITH",
      "STR_ENDS_WITH",
      "STR_CONTAINS",
      "NUM_EQ",
      "NUM_GT",
      "NUM_LTE",
      "DATE_AFTER",
      "DATE_BEFORE",
      "SEMVER_EQ",
      "SEMVER_GT",
      "SEMVER_LT",
      "IN_CIDR",
      "REGEX",
      "NOT_AN_OPERATOR",
    ),
    values: fc.array(fc.constantFrom(...texts, "10.0.0.0/8", "a"), { maxLength: 3 }),
    value: fc.constantFrom("42", "1.2.3", "2024-01-01T00:00:00Z", "^u[0-9]$", "(", "not a number"),
    inverted: fc.boolean(),
    caseInsensitive: fc.boolean(),
  });
  const variants = fc.array(
    fc.record(
      {
        name: fc.constantFrom("red", "green", "blue"),
        weight: fc.integer({ min: 0, max: 1000 }),
        stickiness: fc.constantFrom("default", "userId", "tenant", "random"),
        payload: fc.constant({ type: "string", value: "p" }),
        overrides: fc.array(
          fc.record({ contextName: fc.constantFrom(...fields), values: fc.array(fc.constantFrom(...texts)) }),
          {
            maxLength: 1,
          },
        ),
      },
      { requiredKeys: ["name", "weight"] },
    ),
    { maxLength: 3 },
  );
  const strategy = fc.record(
    {
      id: fc.uuid(),
      name: fc.constantFrom(
        "default",
        "userWithId",
        "flexibleRollout",
        "gradualRolloutUserId",
        "gradualRolloutSessionId",
        "gradualRolloutRandom",
        "remoteAddress",
        "applicationHostname",
        "tenant",
        "unknown-to-all",
      ),
      disabled: fc.boolean(),
      parameters: fc.record(
        {
          rollout: fc.integer({ min: 0, max: 100 }).map(String),
          percentage: fc.integer({ min: 0, max: 100 }).map(String),
          stickiness: fc.constantFrom("default", "userId", "sessionId", "tenant", "random"),
          groupId: fc.constantFrom("g1", "g2"),
          userIds: fc.constantFrom("u1,u2", "u3"),
          IPs: fc.constantFrom("10.0.0.0/8", "192.168.1.1"),
          hostNames: fc.constantFrom("web-1", "db-1"),
        },
        { requiredKeys: [] },
      ),
      constraints: fc.array(rules, { maxLength: 3 }),
      segments: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 2 }),
      variants,
    },
    { requiredKeys: ["id", "name"] },
  );
  const feature = fc.record(
    {
      name: fc.constantFrom(...names),
      enabled: fc.boolean(),
      impressionData: fc.boolean(),
      strategies: fc.array(strategy, { maxLength: 4 }),
      variants,
      dependencies: fc.array(
        fc.record(
          {
            feature: fc.constantFrom(...names, "missing"),
            enabled: fc.boolean(),
            variants: fc.array(fc.constantFrom("red", "green", "disabled"), { maxLength: 2 }),
          },
          { requiredKeys: ["feature"] },
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ["name", "enabled"] },
  );
  // Segment 4 is named by strategies but never defined.
  const segments = fc.array(
    fc.record({
      id: fc.integer({ min: 1, max: 3 }),
      name: fc.string(),
      constraints: fc.array(rules, { maxLength: 2 }),
    }),
    { maxLength: 3 },
  );
  const context = fc.record(
    {
      userId: fc.constantFrom(...texts),
      sessionId: fc.constantFrom(...texts),
      remoteAddress: fc.constantFrom("10.1.2.3", "192.168.1.1", "::1"),
      currentTime: fc.constantFrom("2023-06-01T00:00:00Z", "2025-06-01T00:00:00Z", "yesterday"),
      properties: fc.record(
        {
          tenant: fc.constantFrom(...texts),
          version: fc.constantFrom(...texts),
          age: fc.constantFrom(...texts),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );
  const options = fc.record(
    {
      hostname: fc.constantFrom("web-1", "db-1"),
      strategies: fc.constant([
        {
          name: "tenant",
          isEnabled: (_: Record<string, string>, context: Context) => context.tenant === "acme",
        },
      ]),
    },
    { requiredKeys: [] },
  );

  const agree = (snapshot: Snapshot, context: Context, fallback: string | undefined) => {
    const settings = fallback === undefined ? undefined : { stickinessFallback: fallback };
    for (const name of [...names, "missing"]) {
      expect(answer(snapshot.explain(name, context, settings))).toEqual(
        answer(snapshot.evaluate(name, context, settings)),
      );
    }
    expect(snapshot.explainAll(context, settings).map(answer)).toEqual(
      snapshot.evaluateAll(context, settings).map(answer),
    );
  };

  it("for generated flags, segments, dependencies and contexts", () => {
    fc.assert(
      fc.property(
        fc.array(feature, { maxLength: 5 }),
        segments,
        options,
        context,
        fc.option(fc.constantFrom("7", "8231")),
        (features, segments, options, context, fallback) => {
          const snapshot = compile(
            { version: 2, features, segments } as ClientFeatures,
            options as CompileOptions,
          );
          agree(snapshot, context as Context, fallback ?? undefined);
          for (const explanation of snapshot.explainAll(context as Context)) {
            const decided = explanation.strategies.find((strategy) => strategy.result);
            expect(explanation.strategies.every((strategy) => !strategy.disabled || !strategy.result)).toBe(
              true,
            );
            if (explanation.enabled) {
              expect(explanation.flagEnabled).toBe(true);
              expect(explanation.hasUnsatisfiedDependency).toBe(false);
            }
            if (explanation.variantSource === "strategy")
              expect(decided?.variant).toEqual(explanation.variant);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("for documents and contexts of any shape, without throwing", () => {
    fc.assert(
      fc.property(
        fc.array(junkFeature, { maxLength: 4 }),
        junkSegments,
        junkContext,
        (features, segments, context) => {
          const snapshot = compile({ version: 2, features, segments } as unknown as ClientFeatures);
          agree(snapshot, context as Context, undefined);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("what an explanation tells", () => {
  const flag = (definition: Partial<FeatureDefinition> & { name: string }): FeatureDefinition => ({
    enabled: true,
    strategies: [{ name: "default" }],
    ...definition,
  });

  it("names the constraint that failed and the value it compared", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "pro-only",
          strategies: [
            {
              id: "s1",
              name: "flexibleRollout",
              parameters: { rollout: "100", stickiness: "default", groupId: "pro-only" },
              constraints: [
                { contextName: "appName", operator: "IN", values: ["web"] },
                { contextName: "plan", operator: "IN", values: ["pro", "team"], inverted: false },
              ],
            },
          ],
        }),
      ],
    });
    const explanation = snapshot.explain("pro-only", { appName: "web", properties: { plan: "free" } });
    expect(explanation.enabled).toBe(false);
    expect(explanation.strategies).toEqual([
      {
        id: "s1",
        name: "flexibleRollout",
        disabled: false,
        parameters: { rollout: "100", stickiness: "default", groupId: "pro-only" },
        decidable: true,
        result: false,
        segments: [],
        constraints: [
          {
            contextName: "appName",
            operator: "IN",
            values: ["web"],
            inverted: false,
            caseInsensitive: false,
            contextValue: "web",
            result: true,
          },
          {
            contextName: "plan",
            operator: "IN",
            values: ["pro", "team"],
            inverted: false,
            caseInsensitive: false,
            contextValue: "free",
            result: false,
          },
        ],
      },
    ]);
  });

  it("explains the strategies of a flag that is switched off, which stays off", () => {
    const snapshot = compile({ features: [flag({ name: "off", enabled: false })] });
    const explanation = snapshot.explain("off", {});
    expect(explanation).toMatchObject({ enabled: false, flagEnabled: false, variant: { name: "disabled" } });
    expect(explanation.strategies.map((strategy) => strategy.result)).toEqual([true]);
  });

  it("shows each segment with its own constraints, and a segment the document lacks as not found", () => {
    const snapshot = compile({
      features: [
        flag({ name: "beta", strategies: [{ name: "default", segments: [1] }] }),
        flag({ name: "orphan", strategies: [{ name: "default", segments: [9] }] }),
      ],
      segments: [
        {
          id: 1,
          name: "beta testers",
          constraints: [{ contextName: "userId", operator: "IN", values: ["7"] }],
        },
      ],
    });
    const [beta] = snapshot.explain("beta", { userId: "7" }).strategies;
    expect(beta?.result).toBe(true);
    expect(beta?.segments).toEqual([
      {
        id: 1,
        name: "beta testers",
        found: true,
        result: true,
        constraints: [
          {
            contextName: "userId",
            operator: "IN",
            values: ["7"],
            inverted: false,
            caseInsensitive: false,
            contextValue: "7",
            result: true,
          },
        ],
      },
    ]);
    const orphan = snapshot.explain("orphan", { userId: "7" });
    expect(orphan.enabled).toBe(false);
    expect(orphan.strategies[0]?.segments).toEqual([{ id: 9, found: false, result: false, constraints: [] }]);
  });

  it("lists a disabled strategy, with its constraints, as never letting anyone in", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "paused",
          strategies: [
            {
              name: "default",
              disabled: true,
              constraints: [{ contextName: "userId", operator: "IN", values: ["1"] }],
            },
          ],
        }),
      ],
    });
    const explanation = snapshot.explain("paused", { userId: "1" });
    expect(explanation.enabled).toBe(false);
    expect(explanation.strategies[0]).toMatchObject({
      disabled: true,
      result: false,
      constraints: [{ result: true }],
    });
  });

  it("tells which strategies it cannot decide: unknown ones, and a host name it was not given", () => {
    const features = [
      flag({
        name: "mixed",
        strategies: [
          { name: "someone-elses" },
          { name: "applicationHostname", parameters: { hostNames: "web-1" } },
        ],
      }),
    ];
    const decidable = (options?: CompileOptions) =>
      compile({ features }, options)
        .explain("mixed", {})
        .strategies.map((strategy) => strategy.decidable);
    expect(decidable()).toEqual([false, false]);
    expect(decidable({ hostname: "web-1" })).toEqual([false, true]);
    expect(
      decidable({ hostname: "web-1", strategies: [{ name: "someone-elses", isEnabled: () => true }] }),
    ).toEqual([true, true]);
  });

  it("reports a dependency that keeps the flag off, and still explains its strategies", () => {
    const snapshot = compile({
      features: [
        flag({ name: "parent", variants: [{ name: "blue", weight: 1000 }] }),
        flag({ name: "child", dependencies: [{ feature: "parent", enabled: true, variants: ["red"] }] }),
      ],
    });
    const explanation = snapshot.explain("child", { userId: "1" });
    expect(explanation).toMatchObject({ enabled: false, hasUnsatisfiedDependency: true, flagEnabled: true });
    expect(explanation.strategies[0]?.result).toBe(true);
  });

  it("says whether the variant came from the strategy that matched or from the flag", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "paint",
          strategies: [
            {
              name: "default",
              constraints: [{ contextName: "userId", operator: "IN", values: ["1"] }],
              variants: [{ name: "red", weight: 1000, stickiness: "default" }],
            },
            { name: "default" },
          ],
          variants: [{ name: "blue", weight: 1000 }],
        }),
        flag({ name: "plain" }),
      ],
    });
    const first = snapshot.explain("paint", { userId: "1" });
    expect(first).toMatchObject({ variant: { name: "red" }, variantSource: "strategy" });
    expect(first.strategies.map((strategy) => strategy.variant?.name)).toEqual(["red", undefined]);
    // A strategy that does not let the context in still tells what its variants would give.
    const second = snapshot.explain("paint", { userId: "2" });
    expect(second.strategies.map((strategy) => strategy.variant?.name)).toEqual(["red", undefined]);
    expect(snapshot.explain("paint", { userId: "2" })).toMatchObject({
      variant: { name: "blue" },
      variantSource: "flag",
    });
    expect(snapshot.explain("plain", {}).variantSource).toBeUndefined();
  });

  it("says why a constraint it cannot read is false", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "broken",
          strategies: [
            { name: "default", constraints: [{ contextName: "age", operator: "NUM_GT", value: "many" }] },
          ],
        }),
      ],
    });
    const [constraint] = snapshot.explain("broken", { properties: { age: "40" } }).strategies[0]!.constraints;
    expect(constraint).toMatchObject({ result: false, problem: 'NUM_GT needs a number, got "many"' });
  });

  it("answers for a flag the snapshot does not hold as evaluate does: off", () => {
    expect(compile({ features: [] }).explain("nowhere", {})).toEqual({
      name: "nowhere",
      enabled: false,
      impressionData: false,
      variant: { name: "disabled", enabled: false, feature_enabled: false },
      flagEnabled: false,
      hasUnsatisfiedDependency: false,
      strategies: [],
    });
  });
});
