import { randomUUID } from "node:crypto";
import type { ConstraintExplanation, Explanation, StrategyExplanation } from "@signalbox/engine";
import type { FeatureDefinition, VariantDefinition } from "@signalbox/protocol";
import type { PlaygroundFeature } from "./schemas.js";

type PlaygroundStrategy = PlaygroundFeature["strategies"]["data"][number];

/** Where a flag was evaluated, for the links the answer carries. */
export interface Place {
  project: string;
  environment: string;
}

/** A constraint as shown: the engine's reason for a malformed one is no field of the reference's. */
const constraintView = ({ problem: _, ...constraint }: ConstraintExplanation) => constraint;

/**
 * What the reference says of one strategy. A strategy the engine cannot decide (custom, or
 * applicationHostname, whose host is the SDK's, not this service's) is `unknown` unless
 * its constraints or segments already rule it out; a disabled one is `unknown` and
 * unevaluated. Either counts as off, as in SDKs.
 */
function strategyResult(
  strategy: StrategyExplanation,
  variants: VariantDefinition[] | undefined,
): PlaygroundStrategy["result"] {
  const rulesHold =
    strategy.constraints.every((constraint) => constraint.result) &&
    strategy.segments.every((segment) => segment.result);
  if (!strategy.decidable) return { evaluationStatus: "incomplete", enabled: rulesHold ? "unknown" : false };
  if (strategy.disabled) return { evaluationStatus: "unevaluated", enabled: "unknown" };
  if (!strategy.variant) return { evaluationStatus: "complete", enabled: strategy.result };
  const { name, enabled, payload } = strategy.variant;
  return {
    evaluationStatus: "complete",
    enabled: strategy.result,
    variant: { name, enabled, ...(payload ? { payload } : {}) },
    variants: variants ?? [],
  };
}

function strategyView(
  strategy: StrategyExplanation,
  variants: VariantDefinition[] | undefined,
  flag: string,
  place: Place,
): PlaygroundStrategy {
  // The reference makes up an id for a strategy without one, as here when a strategy changed
  // between reading the SDK document and the strategies' ids.
  const id = strategy.id ?? randomUUID();
  return {
    name: strategy.name,
    ...(strategy.title ? { title: strategy.title } : {}),
    id,
    result: strategyResult(strategy, variants),
    disabled: strategy.disabled,
    segments: strategy.segments.map((segment) => ({
      id: segment.id,
      name: segment.name ?? String(segment.id),
      result: segment.result,
      constraints: segment.constraints.map(constraintView),
    })),
    constraints: strategy.constraints.map(constraintView),
    parameters: strategy.parameters,
    links: {
      edit: `/projects/${place.project}/features/${flag}/strategies/edit?environmentId=${place.environment}&strategyId=${id}`,
    },
  };
}

/** True when a strategy lets the context in, else `unknown` when one could not be evaluated. */
function overallResult(data: PlaygroundStrategy[], flagEnabled: boolean): boolean | "unknown" {
  // A flag without strategies in the environment is on for everyone when switched on.
  if (data.length === 0) return flagEnabled;
  if (data.some((strategy) => strategy.result.enabled === true)) return true;
  return data.some((strategy) => strategy.result.enabled === "unknown") ? "unknown" : false;
}

/**
 * One flag as the reference's playground shows it, from the engine's explanation. The
 * document holds only well-formed strategies, so the engine explains each, in order.
 */
export function featureView(
  explanation: Explanation,
  definition: FeatureDefinition,
  place: Place,
): PlaygroundFeature {
  const definitions = definition.strategies ?? [];
  const data = explanation.strategies.map((strategy, index) =>
    strategyView(strategy, definitions[index]?.variants, definition.name, place),
  );
  const decided = explanation.strategies.findIndex((strategy) => strategy.result);
  const decidingVariants = definitions[decided]?.variants ?? [];
  const { name, enabled, payload, feature_enabled } = explanation.variant;
  return {
    name: definition.name,
    projectId: place.project,
    isEnabled: explanation.enabled,
    isEnabledInCurrentEnvironment: explanation.flagEnabled,
    hasUnsatisfiedDependency: explanation.hasUnsatisfiedDependency,
    strategies: {
      result: overallResult(data, explanation.flagEnabled),
      data,
    },
    variant: {
      name,
      enabled,
      ...(payload ? { payload } : {}),
      feature_enabled,
      featureEnabled: feature_enabled,
    },
    // The variants of the strategy that lets the context in, when it has any; else the flag's.
    variants: decidingVariants.length > 0 ? decidingVariants : (definition.variants ?? []),
  };
}
