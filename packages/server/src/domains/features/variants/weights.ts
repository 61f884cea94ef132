import { invalidField } from "@signalbox/protocol";
import type { VariantRow } from "../../../db/schema.js";
import type { VariantInput } from "./schemas.js";

const TOTAL_WEIGHT = 1000;

/**
 * The reference sorts variants with `a.name.localeCompare(b.name)`, which follows the
 * server's locale: under Danish "aa" comes after "z", under Czech "ch" after "h". Its
 * published images set no locale, where Node's default is en-US; that collation is fixed
 * here whatever this machine's locale: lowercase before uppercase, accents after the bare
 * letter, punctuation before digits before letters, digits compared as text ("10" < "9").
 */
const collator = new Intl.Collator("en-US");

/**
 * Variants in the order the reference stores and serves them, by name. SDKs walk the list
 * to place a user, so this order decides who gets which variant.
 */
function inReferenceOrder<T extends { name: string }>(variants: readonly T[]): T[] {
  return [...variants].sort((a, b) => collator.compare(a.name, b.name));
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

function check(variants: readonly VariantInput[], path: string): void {
  const names = new Set<string>();
  variants.forEach((variant, index) => {
    if (names.has(variant.name))
      throw invalidField(`${path}.${index}.name`, `variant names must be unique: ${variant.name} repeats`);
    names.add(variant.name);
    checkPayload(variant.payload, `${path}.${index}`);
  });
}

/** A variant as stored: what was sent, with the weight and weight type given. */
const stored = (variant: VariantInput, weight: number, weightType = variant.weightType): VariantRow => ({
  name: variant.name,
  weight,
  ...(weightType !== undefined ? { weightType } : {}),
  ...(variant.stickiness !== undefined ? { stickiness: variant.stickiness } : {}),
  ...(variant.payload ? { payload: variant.payload } : {}),
  ...(variant.overrides ? { overrides: variant.overrides } : {}),
});

/**
 * Checks a variant list and settles its weights as the reference does: `fix` weights stay
 * as given, `variable` ones (a variant without a weight type counts as one) share what the
 * fixed ones leave, the remainder of an uneven split going one point each to the first
 * variable variants as sent. Sorted by name after. The weights must make 1000, as the spec
 * has them: fixed ones alone must add up to it (the reference wants a variable one too).
 */
export function settleVariants(variants: readonly VariantInput[], path = "variants"): VariantRow[] {
  check(variants, path);
  if (variants.length === 0) return [];
  const fixed = variants.filter((variant) => variant.weightType === "fix");
  const variable = variants.length - fixed.length;
  const fixedTotal = fixed.reduce((sum, variant) => sum + variant.weight, 0);
  if (fixedTotal > TOTAL_WEIGHT)
    throw invalidField(path, `fixed weights add up to ${fixedTotal}, more than ${TOTAL_WEIGHT}`);
  if (variable === 0 && fixedTotal !== TOTAL_WEIGHT)
    throw invalidField(
      path,
      `fixed weights add up to ${fixedTotal}: without a "variable" variant they must make ${TOTAL_WEIGHT}`,
    );
  if (variable === 0) return inReferenceOrder(variants.map((variant) => stored(variant, variant.weight)));
  const share = Math.floor((TOTAL_WEIGHT - fixedTotal) / variable);
  let remainder = (TOTAL_WEIGHT - fixedTotal) % variable;
  return inReferenceOrder(
    variants.map((variant) =>
      variant.weightType === "fix"
        ? stored(variant, variant.weight)
        : stored(variant, share + (remainder-- > 0 ? 1 : 0), "variable"),
    ),
  );
}

/**
 * Checks a variant list and keeps it as sent, weights included, sorted by name: what the
 * reference stores for variants given with a new flag.
 */
export function variantsAsSent(variants: readonly VariantInput[], path = "variants"): VariantRow[] {
  check(variants, path);
  return inReferenceOrder(variants.map((variant) => stored(variant, variant.weight)));
}
