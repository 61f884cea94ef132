import type { CompiledSegment, CompiledStrategy } from "./compiled.js";
import { type ConstraintCheck, constraintProblem } from "./constraints.js";
import type { Context, Evaluation, VariantResult } from "./context.js";
import { contextValue } from "./fields.js";
import { UNDECIDABLE } from "./strategies.js";

/** One constraint, with the value of the context it was compared with. */
export interface ConstraintExplanation {
  contextName: string;
  operator: string;
  values: string[];
  value?: string;
  inverted: boolean;
  caseInsensitive: boolean;
  /** The context's value of `contextName`, as the operator read it; left out when the context has none. */
  contextValue?: string;
  result: boolean;
  /** Why the engine cannot read the constraint, which is then false (see `constraintProblem`). */
  problem?: string;
}

export interface SegmentExplanation {
  id: number;
  name?: string;
  /** False when the document lacks the segment: the strategy naming it is then off. */
  found: boolean;
  /** Whether every constraint of the segment holds. */
  result: boolean;
  constraints: ConstraintExplanation[];
}

export interface StrategyExplanation {
  name: string;
  id?: string;
  title?: string;
  /** A disabled strategy is never tried; its constraints and segments are still explained. */
  disabled: boolean;
  parameters: Record<string, string>;
  /**
   * False when the answer depends on what the engine was not given: a strategy neither built
   * in nor supplied by the host, or applicationHostname compiled without a hostname. Such a
   * strategy counts as off, here as in `evaluate`.
   */
  decidable: boolean;
  /** The strategy's own constraints; its segments' are under `segments`. */
  constraints: ConstraintExplanation[];
  segments: SegmentExplanation[];
  /**
   * Whether it lets the context in: not disabled, every constraint and segment holding, and
   * its own test (rollout, user list…) passing. The first such strategy is the one that
   * switches the flag on; the test is not run when a constraint or segment already failed.
   */
  result: boolean;
  /**
   * The variant its own variants give this context, whether or not it lets the context in
   * (left out when disabled or without variants). The deciding strategy's is the flag's.
   */
  variant?: VariantResult;
}

/** An evaluation (the very answer `evaluate` gives) with the reasons for it. */
export interface Explanation extends Evaluation {
  /** The flag's own switch in the document, whatever its strategies say. */
  flagEnabled: boolean;
  /** A parent missing, with parents of its own, or not answering as required keeps the flag off. */
  hasUnsatisfiedDependency: boolean;
  /** Every strategy the document lists, in order, disabled ones too. */
  strategies: StrategyExplanation[];
  /** Where the variant of a flag that is on came from; left out when neither has variants. */
  variantSource?: "strategy" | "flag";
}

function explainConstraint(check: ConstraintCheck, context: Context): ConstraintExplanation {
  const { definition } = check;
  const value = check.malformed ? undefined : contextValue(context, check.field);
  const values = Array.isArray(definition?.values) ? definition.values : [];
  const single = definition?.value as unknown;
  const explanation: ConstraintExplanation = {
    contextName: check.field,
    operator: String(definition?.operator),
    values: values.filter((entry): entry is string => typeof entry === "string"),
    inverted: definition?.inverted === true,
    caseInsensitive: definition?.caseInsensitive === true,
    result: !check.malformed && check.holds(value),
  };
  if (typeof single === "string" || typeof single === "number") explanation.value = String(single);
  if (value !== undefined) explanation.contextValue = value;
  if (check.malformed) explanation.problem = constraintProblem(definition);
  return explanation;
}

function explainSegment(named: CompiledSegment, context: Context): SegmentExplanation {
  const constraints = named.checks.map((check) => explainConstraint(check, context));
  const explanation: SegmentExplanation = {
    id: named.id,
    found: named.segment !== undefined,
    result: named.segment !== undefined && constraints.every((constraint) => constraint.result),
    constraints,
  };
  if (typeof named.segment?.name === "string") explanation.name = named.segment.name;
  return explanation;
}

export function explainStrategy(
  strategy: CompiledStrategy,
  context: Context,
  fallback: string | undefined,
): StrategyExplanation {
  const { definition } = strategy;
  const constraints = strategy.checks.map((check) => explainConstraint(check, context));
  const segments = strategy.segments.map((segment) => explainSegment(segment, context));
  const disabled = definition.disabled === true;
  const admitted =
    constraints.every((constraint) => constraint.result) && segments.every((segment) => segment.result);
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(definition.parameters ?? {})) {
    if (value !== undefined && value !== null) parameters[name] = String(value);
  }
  const explanation: StrategyExplanation = {
    name: definition.name,
    disabled,
    parameters,
    decidable: strategy.test !== UNDECIDABLE,
    constraints,
    segments,
    result: !disabled && admitted && strategy.test(context, fallback),
  };
  if (typeof definition.id === "string") explanation.id = definition.id;
  if (typeof definition.title === "string") explanation.title = definition.title;
  return explanation;
}
