import { type Payload, type Variant, variantLabel } from "./variant";
import { fixedTotal, formatPercent, TOTAL_WEIGHT } from "./weights";

const NAME_MAX = 255;

/** What the service would refuse in a payload, as it checks it; no payload is fine. */
export function payloadProblem(payload: Payload | undefined): string | undefined {
  if (!payload) return undefined;
  if (payload.type === "json") {
    try {
      JSON.parse(payload.value);
    } catch (error) {
      return `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  if (payload.type === "number" && (payload.value.trim() === "" || Number.isNaN(Number(payload.value))))
    return "Not a number: write it as 42, -1 or 0.5.";
  return undefined;
}

export interface VariantProblems {
  name?: string;
  payload?: string;
  /** One entry an override, in order. */
  overrides: (string | undefined)[];
}

export interface ListProblems {
  /** About the weights of the list as a whole. */
  weights?: string;
  variants: VariantProblems[];
}

function weightsProblem(variants: readonly Variant[]): string | undefined {
  if (variants.length === 0) return undefined;
  const fixed = fixedTotal(variants);
  if (variants.every((variant) => variant.weightType === "fix") && fixed !== TOTAL_WEIGHT)
    return `Fixed weights add up to ${formatPercent(fixed)}: without a variable variant they must make 100 %.`;
  if (fixed > TOTAL_WEIGHT)
    return `Fixed weights add up to ${formatPercent(fixed)}, more than 100 %. Lower them to leave room for the variable variants.`;
  return undefined;
}

function nameProblem(variants: readonly Variant[], index: number): string | undefined {
  const { name } = variants[index]!;
  if (name === "") return "A name is required.";
  if (name.length > NAME_MAX) return `A name is at most ${NAME_MAX} characters.`;
  if (variants.findIndex((other) => other.name === name) < index)
    return `Another variant is already called ${name}.`;
  return undefined;
}

/** Everything the service would refuse in this list, by field, for the editor to show inline. */
export function problemsOf(variants: readonly Variant[]): ListProblems {
  return {
    weights: weightsProblem(variants),
    variants: variants.map((variant, index) => ({
      name: nameProblem(variants, index),
      payload: payloadProblem(variant.payload),
      overrides: (variant.overrides ?? []).map((override) =>
        override.contextName === "" ? "Choose a context field." : undefined,
      ),
    })),
  };
}

/**
 * The first thing the service would refuse in this list, worded for a person, or undefined
 * when it may be saved: callers disable Save while there is one.
 */
export function variantsProblem(variants: readonly Variant[]): string | undefined {
  const problems = problemsOf(variants);
  if (problems.weights) return problems.weights;
  for (const [index, found] of problems.variants.entries()) {
    const problem = found.name ?? found.payload ?? found.overrides.find(Boolean);
    if (problem) return `${variantLabel(variants[index]!, index)} — ${problem}`;
  }
  return undefined;
}
