import type { Context, Evaluation, VariantResult } from "./context.js";
import type { VariantDefinition } from "./definitions.js";
import { type FieldReader, fieldReader, randomId, remoteAddress, sessionId, userId } from "./fields.js";
import { bucketing, VARIANT_SEED } from "./hash.js";

export const FLAG_OFF: VariantResult = Object.freeze({
  name: "disabled",
  enabled: false,
  feature_enabled: false,
});
export const NO_VARIANT: VariantResult = Object.freeze({
  name: "disabled",
  enabled: false,
  feature_enabled: true,
});

interface WeightedVariant {
  weight: number;
  evaluation: Evaluation;
}

interface Override {
  read: FieldReader;
  values: ReadonlySet<string>;
  evaluation: Evaluation;
}

/** A variant list compiled for one flag: results are built once and shared. */
export interface VariantPicker {
  /** `fallback` stands in for the random seed of `default` stickiness (EvaluationOptions). */
  pick(context: Context, fallback: string | undefined): Evaluation | undefined;
}

type Seed = (context: Context, fallback: string | undefined) => string;

/**
 * The seed a sticky variant is chosen by: userId, then sessionId, then remoteAddress (as the
 * Node SDK, which the reference's frontend API evaluates with), then the fallback or random.
 */
function seedOf(stickiness: string): Seed {
  if (stickiness === "default") {
    return (context, fallback) =>
      userId(context) ?? sessionId(context) ?? remoteAddress(context) ?? fallback ?? randomId(100000);
  }
  if (stickiness === "random") return () => randomId(100000);
  const read = fieldReader(stickiness);
  return (context) => read(context) ?? randomId(100000);
}

/** `stickiness` is the one the variants are chosen by; left out, it is `default`. */
export function compileVariants(
  definitions: readonly VariantDefinition[] | null | undefined,
  groupId: string,
  stickiness: string | undefined,
  result: (variant: VariantResult) => Evaluation,
): VariantPicker | undefined {
  if (!Array.isArray(definitions) || definitions.length === 0) return undefined;
  const weighted: WeightedVariant[] = [];
  const overrides: Override[] = [];
  let total = 0;
  for (const definition of definitions) {
    if (!definition || typeof definition.name !== "string") continue;
    const variant: VariantResult = { name: definition.name, enabled: true, feature_enabled: true };
    const payload = definition.payload;
    if (
      payload &&
      typeof payload.type === "string" &&
      payload.value !== undefined &&
      payload.value !== null
    ) {
      // Payload values are strings on the wire; a structured one sent by a non-conforming
      // source keeps its content as JSON rather than becoming "[object Object]".
      const value = typeof payload.value === "object" ? JSON.stringify(payload.value) : String(payload.value);
      variant.payload = Object.freeze({ type: payload.type, value });
    }
    const evaluation = result(Object.freeze(variant));
    const weight = Number(definition.weight);
    if (Number.isFinite(weight) && weight > 0) {
      weighted.push({ weight, evaluation });
      total += weight;
    }
    for (const override of Array.isArray(definition.overrides) ? definition.overrides : []) {
      if (override && typeof override.contextName === "string" && Array.isArray(override.values)) {
        overrides.push({
          read: fieldReader(override.contextName),
          values: new Set(override.values),
          evaluation,
        });
      }
    }
  }
  const seed = seedOf(stickiness ?? "default");
  const bucket = bucketing(groupId, total, VARIANT_SEED);
  return {
    pick(context, fallback) {
      for (const override of overrides) {
        const value = override.read(context);
        if (value !== undefined && override.values.has(value)) return override.evaluation;
      }
      if (total <= 0) return undefined;
      const target = bucket(seed(context, fallback));
      let counter = 0;
      for (const variant of weighted) {
        counter += variant.weight;
        if (counter >= target) return variant.evaluation;
      }
      return undefined;
    },
  };
}
