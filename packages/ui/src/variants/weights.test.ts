import { describe, expect, it } from "vitest";
import type { Variant } from "./variant";
import { settleWeights, toWeight } from "./weights";

const variant = (name: string, weightType: Variant["weightType"], weight = 0): Variant => ({
  name,
  weight,
  weightType,
  stickiness: "default",
});

const weights = (variants: Variant[]) => settleWeights(variants).map((settled) => settled.weight);

// The numbers the service stores for the same lists (PUT …/environments/:env/variants),
// whose rule is settleVariants in packages/server/src/domains/features/variants/weights.ts.
describe("settleWeights, as the service settles weights", () => {
  it("splits evenly, the remainder going to the first variable variants as sent", () => {
    expect(weights([variant("c", "variable"), variant("b", "variable"), variant("a", "variable")])).toEqual([
      334, 333, 333,
    ]);
    expect(weights([variant("a", "variable", 700)])).toEqual([1000]);
  });

  it("keeps fixed weights and shares what they leave", () => {
    expect(
      weights([
        variant("a", "fix", 250),
        variant("b", "variable"),
        variant("c", "variable"),
        variant("d", "variable"),
        variant("e", "variable"),
      ]),
    ).toEqual([250, 188, 188, 187, 187]);
    expect(weights([variant("a", "variable"), variant("b", "fix", 1000)])).toEqual([0, 1000]);
  });

  it("leaves nothing to share when fixed weights are over the total, and fixed-only lists alone", () => {
    expect(weights([variant("a", "fix", 700), variant("b", "fix", 700), variant("c", "variable")])).toEqual([
      700, 700, 0,
    ]);
    expect(weights([variant("a", "fix", 500), variant("b", "fix", 400)])).toEqual([500, 400]);
  });

  it("turns a percentage with one decimal into the service's weight out of 1000", () => {
    expect(toWeight(25)).toBe(250);
    expect(toWeight(33.3)).toBe(333);
    expect(toWeight(12.34)).toBe(123);
    expect(toWeight(120)).toBe(1000);
  });
});
