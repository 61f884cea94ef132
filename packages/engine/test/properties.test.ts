import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ClientFeatures,
  CONSTRAINT_OPERATORS,
  type Context,
  compile,
  type FeatureDefinition,
} from "../src/index.js";

const operators = [...CONSTRAINT_OPERATORS, "NOT_AN_OPERATOR"];
const fields = ["userId", "sessionId", "remoteAddress", "currentTime", "environment", "appName", "tenant"];
const strategyNames = [
  "default",
  "userWithId",
  "flexibleRollout",
  "gradualRolloutUserId",
  "gradualRolloutSessionId",
  "gradualRolloutRandom",
  "remoteAddress",
  "applicationHostname",
  "custom-unknown",
];

// Anything a broken or hostile document could hold where a value is expected.
const junk = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: false }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom("1.2.3", "v1.0.0", "2022-01-01T00:00:00Z", "10.0.0.0/8", "::1", "(", "[[:alpha:]]", "50"),
);

const constraint = fc.record({
  contextName: fc.oneof(fc.constantFrom(...fields), junk),
  operator: fc.oneof(fc.constantFrom(...operators), junk),
  values: fc.oneof(fc.array(fc.oneof(fc.string(), junk), { maxLength: 4 }), junk),
  value: junk,
  inverted: fc.oneof(fc.boolean(), junk),
  caseInsensitive: fc.oneof(fc.boolean(), junk),
});

const strategy = fc.record({
  name: fc.oneof(fc.constantFrom(...strategyNames), junk),
  parameters: fc.oneof(
    fc.dictionary(
      fc.constantFrom("rollout", "stickiness", "groupId", "userIds", "IPs", "percentage", "hostNames"),
      junk,
    ),
    junk,
  ),
  constraints: fc.oneof(fc.array(constraint, { maxLength: 3 }), junk),
  segments: fc.oneof(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }), junk),
  variants: fc.oneof(
    fc.array(
      fc.record({ name: fc.oneof(fc.string(), junk), weight: junk, stickiness: junk, payload: junk }),
      {
        maxLength: 3,
      },
    ),
    junk,
  ),
});

const feature = fc.record({
  name: fc.constantFrom("a", "b", "c"),
  enabled: fc.oneof(fc.boolean(), junk),
  impressionData: junk,
  strategies: fc.oneof(fc.array(strategy, { maxLength: 3 }), junk),
  variants: fc.oneof(
    fc.array(
      fc.record({
        name: fc.oneof(fc.string(), junk),
        weight: junk,
        overrides: fc.oneof(fc.array(fc.record({ contextName: junk, values: junk }), { maxLength: 2 }), junk),
      }),
      { maxLength: 3 },
    ),
    junk,
  ),
  dependencies: fc.oneof(
    fc.array(fc.record({ feature: junk, enabled: junk, variants: junk }), { maxLength: 2 }),
    junk,
  ),
});

const context = fc.record(
  {
    userId: junk,
    sessionId: junk,
    remoteAddress: junk,
    currentTime: junk,
    environment: junk,
    properties: fc.oneof(fc.dictionary(fc.constantFrom(...fields), junk), junk),
  },
  { requiredKeys: [] },
);

describe("evaluation properties", () => {
  it("never throws, whatever the document and the context", () => {
    fc.assert(
      fc.property(
        fc.array(feature, { maxLength: 4 }),
        fc.array(
          fc.record({
            id: fc.integer({ min: 0, max: 3 }),
            constraints: fc.oneof(fc.array(constraint), junk),
          }),
        ),
        context,
        (features, segments, junkContext) => {
          // Contexts come from callers as untyped JSON: the engine must cope with any of it.
          const ctx = junkContext as Context;
          const snapshot = compile({ version: 2, features, segments } as unknown as ClientFeatures);
          for (const result of snapshot.evaluateAll(ctx)) {
            expect(typeof result.enabled).toBe("boolean");
            expect(typeof result.variant.name).toBe("string");
          }
          expect(snapshot.evaluate("missing", ctx).enabled).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("never turns a user off when the rollout grows", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (userId, groupId, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const rollout = (percent: number): FeatureDefinition => ({
            name: `f${percent}`,
            enabled: true,
            strategies: [
              {
                name: "flexibleRollout",
                parameters: { rollout: String(percent), stickiness: "userId", groupId },
              },
            ],
          });
          const snapshot = compile({ features: [rollout(low), rollout(high)] });
          const enabledLow = snapshot.evaluate(`f${low}`, { userId }).enabled;
          const enabledHigh = snapshot.evaluate(`f${high}`, { userId }).enabled;
          expect(!enabledLow || enabledHigh).toBe(true);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("gives each variant its weight's share of 100 000 random users, within one point", () => {
    const weights = { red: 500, green: 300, blue: 150, black: 50 };
    const snapshot = compile({
      features: [
        {
          name: "colours",
          enabled: true,
          strategies: [{ name: "default" }],
          variants: Object.entries(weights).map(([name, weight]) => ({
            name,
            weight,
            stickiness: "default",
          })),
        },
      ],
    });
    const counts = new Map<string, number>();
    const users = 100_000;
    fc.sample(fc.uuid(), { numRuns: users, seed: 42 }).forEach((userId) => {
      const name = snapshot.evaluate("colours", { userId }).variant.name;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    });
    for (const [name, weight] of Object.entries(weights)) {
      expect(Math.abs((counts.get(name) ?? 0) / users - weight / 1000)).toBeLessThan(0.01);
    }
  });
});
