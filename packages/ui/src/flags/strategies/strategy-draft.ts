import { fromStored, type Variant, variantsProblem } from "../../variants/variants-editor";
import { type Constraint, constraintProblem, writableConstraints } from "../constraints/operators";
import type { Strategy, StrategyDefinition, StrategyInput } from "../queries";

/** A strategy being edited: parameters as the wire carries them, strings. */
export interface StrategyDraft {
  name: string;
  title: string;
  disabled: boolean;
  parameters: Record<string, string>;
  constraints: Constraint[];
  segments: number[];
  variants: Variant[];
}

export const GRADUAL_ROLLOUT = "flexibleRollout";

/** Where a strategy is added, which decides its defaults. */
export interface StrategyPlace {
  featureName: string;
  /** The project's default stickiness, which new gradual rollouts start from. */
  defaultStickiness: string;
}

/**
 * A strategy's parameters as they start: a gradual rollout to everyone, sticky as the
 * project chose, grouped by the flag's name (as the reference's form fills them in); other
 * strategies start empty, booleans off.
 */
export function defaultParameters(
  name: string,
  definition: StrategyDefinition | undefined,
  place: StrategyPlace,
): Record<string, string> {
  if (name === GRADUAL_ROLLOUT) {
    return { rollout: "100", stickiness: place.defaultStickiness, groupId: place.featureName };
  }
  return Object.fromEntries(
    (definition?.parameters ?? []).map((parameter) => [
      parameter.name,
      parameter.type === "boolean" ? "false" : "",
    ]),
  );
}

/** A new strategy: a gradual rollout to everyone until the person says otherwise. */
export function newDraft(place: StrategyPlace): StrategyDraft {
  return {
    name: GRADUAL_ROLLOUT,
    title: "",
    disabled: false,
    parameters: defaultParameters(GRADUAL_ROLLOUT, undefined, place),
    constraints: [],
    segments: [],
    variants: [],
  };
}

/**
 * A stored strategy as the editor starts from it. A gradual rollout written by a script may
 * lack the stickiness and group the form requires; they are filled in as SDKs read them
 * when missing (`default`, and the flag's name).
 */
export function draftOf(
  strategy: Pick<
    Strategy,
    "name" | "title" | "disabled" | "parameters" | "constraints" | "segments" | "variants"
  >,
  place: StrategyPlace,
): StrategyDraft {
  const { parameters } = strategy;
  return {
    name: strategy.name,
    title: strategy.title ?? "",
    disabled: strategy.disabled,
    parameters:
      strategy.name === GRADUAL_ROLLOUT
        ? {
            ...parameters,
            stickiness: parameters.stickiness || "default",
            groupId: parameters.groupId || place.featureName,
          }
        : { ...parameters },
    constraints: strategy.constraints,
    segments: strategy.segments,
    variants: fromStored(strategy.variants),
  };
}

/**
 * The definition a strategy's fields are checked against: in a release template a gradual
 * rollout's group id may be left empty, since the service fills in the flag's name when the
 * milestone starts.
 */
export function fieldsDefinition(
  definition: StrategyDefinition | undefined,
  template: boolean,
): StrategyDefinition | undefined {
  if (!template || !definition || definition.name !== GRADUAL_ROLLOUT) return definition;
  return {
    ...definition,
    parameters: definition.parameters.map((parameter) =>
      parameter.name === "groupId" ? { ...parameter, required: false } : parameter,
    ),
  };
}

/** What is wrong with one parameter's value for its declared type, or undefined. */
export function parameterProblem(
  parameter: StrategyDefinition["parameters"][number],
  value: string | undefined,
): string | undefined {
  const text = value?.trim() ?? "";
  if (text === "") return parameter.required ? `${parameter.name} is required.` : undefined;
  const number = Number(text);
  if (parameter.type === "percentage" && !(Number.isFinite(number) && number >= 0 && number <= 100))
    return `${parameter.name} must be a number from 0 to 100.`;
  if (parameter.type === "number" && !Number.isFinite(number)) return `${parameter.name} must be a number.`;
  return undefined;
}

/** Everything that keeps the draft from being saved, each said where it is. */
export function draftProblems(draft: StrategyDraft, definition: StrategyDefinition | undefined): string[] {
  const problems: string[] = [];
  for (const parameter of definition?.parameters ?? []) {
    const problem = parameterProblem(parameter, draft.parameters[parameter.name]);
    if (problem) problems.push(problem);
  }
  draft.constraints.forEach((constraint, index) => {
    const problem = constraintProblem(constraint);
    if (problem) problems.push(`Constraint ${index + 1}: ${problem}`);
  });
  const variants = variantsProblem(draft.variants);
  if (variants) problems.push(`Variants: ${variants}`);
  return problems;
}

/** The draft as POST and PUT take it; only call once `draftProblems` is empty. */
export function strategyBody(draft: StrategyDraft): StrategyInput {
  return {
    name: draft.name,
    title: draft.title.trim() || null,
    disabled: draft.disabled,
    parameters: draft.parameters,
    constraints: writableConstraints(draft.constraints),
    segments: draft.segments,
    variants: draft.variants,
  };
}

/**
 * A stored strategy as a change request's updateStrategy or deleteStrategy carries it: the
 * whole strategy, so a reviewer reads what it will be, not a patch of it.
 */
export function strategyPayload(strategy: Strategy) {
  return {
    id: strategy.id,
    name: strategy.name,
    title: strategy.title,
    disabled: strategy.disabled,
    parameters: strategy.parameters,
    constraints: strategy.constraints,
    segments: strategy.segments,
    variants: strategy.variants,
  };
}
