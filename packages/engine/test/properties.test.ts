import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ClientFeatures, type Context, compile, type FeatureDefinition } from "../src/index.js";
import { junkContext, junkFeature, junkSegments } from "./junk.js";

describe("evaluation properties", () => {
  it("never throws, whatever the document and the context", () => {
    fc.assert(
      fc.property(
        fc.array(junkFeature, { maxLength: 4 }),
        junkSegments,
        junkContext,
        (features, segments, untyped) => {
          // Contexts come from callers as untyped JSON: the engine must cope with any of it.
          const ctx = untyped as Context;
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
