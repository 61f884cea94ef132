import type { Variant } from "./variant";

/** The service's weights are out of 1000: a tenth of a percent each. */
export const TOTAL_WEIGHT = 1000;

export const toPercent = (weight: number) => weight / 10;
export const toWeight = (percent: number) => Math.min(TOTAL_WEIGHT, Math.max(0, Math.round(percent * 10)));

const formatter = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
export const formatPercent = (weight: number) => `${formatter.format(toPercent(weight))} %`;

export const fixedTotal = (variants: readonly Variant[]) =>
  variants.reduce((sum, variant) => sum + (variant.weightType === "fix" ? variant.weight : 0), 0);

/**
 * The weights the service will store for this list, by its own rule (settleVariants in the
 * server's variants/weights.ts): fixed weights stay, variable ones share what they leave,
 * the remainder of an uneven split going one point each to the first variable variants in
 * the order sent. Where the service would refuse the list (fixed weights over the total),
 * the variable ones show nothing left to share.
 */
export function settleWeights(variants: readonly Variant[]): Variant[] {
  const variable = variants.filter((variant) => variant.weightType !== "fix").length;
  if (variable === 0) return [...variants];
  const left = Math.max(0, TOTAL_WEIGHT - fixedTotal(variants));
  const share = Math.floor(left / variable);
  let remainder = left % variable;
  return variants.map((variant) =>
    variant.weightType === "fix" ? variant : { ...variant, weight: share + (remainder-- > 0 ? 1 : 0) },
  );
}
