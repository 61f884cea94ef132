import type { VariantRow } from "../../db/schema.js";
import { invalidField } from "../../http/errors.js";

export const TOTAL_WEIGHT = 1000;

export interface VariantInput {
  name: string;
  weight?: number;
  weightType?: string;
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: { contextName: string; values: string[] }[];
}

function checkPayload(payload: VariantInput["payload"], path: string): void {
  if (!payload) return;
  if (payload.type === "json") {
    try {
      JSON.parse(payload.value);
    } catch {
      throw invalidField(`${path}.payload.value`, `${path}.payload.value must be JSON for a json payload`);
    }
  }
  if (payload.type === "number" && (payload.value.trim() === "" || Number.isNaN(Number(payload.value)))) {
    throw invalidField(
      `${path}.payload.value`,
      `${path}.payload.value must be a number for a number payload`,
    );
  }
}

/**
 * Checks a variant list and settles its weights: `fix` weights stay as given, `variable`
 * ones share what the fixed ones leave, so that every list sums to 1000. The remainder of
 * an uneven split goes to the first variable variants, one point each.
 */
export function settleVariants(variants: readonly VariantInput[], path = "variants"): VariantRow[] {
  const names = new Set<string>();
  let fixed = 0;
  let variable = 0;
  variants.forEach((variant, index) => {
    const at = `${path}.${index}`;
    if (names.has(variant.name))
      throw invalidField(`${at}.name`, `variant names must be unique: ${variant.name} repeats`);
    names.add(variant.name);
    checkPayload(variant.payload, at);
    if (variant.weightType === "fix") fixed += variant.weight ?? 0;
    else variable++;
  });
  if (variants.length === 0) return [];
  if (fixed > TOTAL_WEIGHT)
    throw invalidField(path, `fixed weights add up to ${fixed}, more than ${TOTAL_WEIGHT}`);
  if (variable === 0 && fixed !== TOTAL_WEIGHT) {
    throw invalidField(
      path,
      `fixed weights must add up to ${TOTAL_WEIGHT} when no variant is variable, not ${fixed}`,
    );
  }
  const share = Math.floor((TOTAL_WEIGHT - fixed) / Math.max(variable, 1));
  let remainder = (TOTAL_WEIGHT - fixed) % Math.max(variable, 1);
  return variants.map((variant) => {
    const fix = variant.weightType === "fix";
    const weight = fix ? (variant.weight ?? 0) : share + (remainder-- > 0 ? 1 : 0);
    return {
      name: variant.name,
      weight,
      weightType: fix ? "fix" : "variable",
      stickiness: variant.stickiness || "default",
      ...(variant.payload ? { payload: variant.payload } : {}),
      ...(variant.overrides?.length ? { overrides: variant.overrides } : {}),
    };
  });
}
