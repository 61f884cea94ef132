import { isDeepStrictEqual } from "node:util";
import type { VariantRow } from "../../db/schema.js";
import type { VariantInput } from "../features/variants/schemas.js";
import { settleVariants } from "../features/variants/weights.js";
import type { EnvironmentState, ParentState, StrategyState } from "./history.js";
import type { PlannedChange } from "./schemas.js";

// From a flag's state now and at a version, the changes that bring it back, as the change
// requests' actions name them: a direct restore applies them through the services a direct
// change uses, a restore for review puts them in a change request. Pure.

/**
 * Variants in an order from which settling their weights gives them back as stored: the
 * remainder of an uneven split goes to the first variable variants as sent, so those that
 * got it come first. Whether settling does give them back is `settles`' to say.
 */
export function settleable(variants: readonly VariantRow[]): VariantRow[] {
  const variable = variants.filter((variant) => variant.weightType !== "fix");
  if (variable.length === 0) return [...variants];
  const fixed = variants.filter((variant) => variant.weightType === "fix");
  const share = Math.floor(
    (1000 - fixed.reduce((sum, variant) => sum + variant.weight, 0)) / variable.length,
  );
  return [
    ...variable.filter((variant) => variant.weight > share),
    ...variable.filter((variant) => variant.weight <= share),
    ...fixed,
  ];
}

/** Whether variants sent in `settleable`'s order are stored as they are: weights settled, types named. */
export function settles(variants: readonly VariantRow[]): boolean {
  try {
    return isDeepStrictEqual(settleVariants(settleable(variants) as VariantInput[]), [...variants]);
  } catch {
    return false;
  }
}

/** What an SDK and the admin API see of a strategy, but its id and position. */
export const sameContent = (a: StrategyState, b: StrategyState) =>
  a.name === b.name &&
  a.title === b.title &&
  a.disabled === b.disabled &&
  isDeepStrictEqual(a.parameters, b.parameters) &&
  isDeepStrictEqual(a.constraints, b.constraints) &&
  isDeepStrictEqual(a.segments, b.segments) &&
  isDeepStrictEqual(a.variants, b.variants);

/** A strategy as a change request's addStrategy or updateStrategy carries it. */
function strategyPayload(strategy: StrategyState, position: boolean) {
  return {
    name: strategy.name,
    ...(strategy.title !== null ? { title: strategy.title } : {}),
    disabled: strategy.disabled,
    ...(position ? { sortOrder: strategy.sortOrder } : {}),
    constraints: strategy.constraints,
    parameters: strategy.parameters,
    segments: strategy.segments,
    variants: settleable(strategy.variants),
  };
}

/**
 * The version's state in an environment as a restore writes it: its strategies in its order,
 * at its positions; where two shared a position (their order then came from their age, which
 * a strategy added again does not keep), numbered 0, 1, 2… in that order instead, unless
 * they are already there as they were.
 */
export function written(current: EnvironmentState, version: EnvironmentState): EnvironmentState {
  const { strategies } = version;
  const distinct = strategies.every(
    (strategy, index) => index === 0 || strategy.sortOrder > strategies[index - 1]!.sortOrder,
  );
  if (distinct || isDeepStrictEqual(current.strategies, strategies)) return version;
  return { ...version, strategies: strategies.map((strategy, index) => ({ ...strategy, sortOrder: index })) };
}

const label = (strategy: StrategyState) =>
  `${strategy.title ? `"${strategy.title}" (${strategy.name})` : strategy.name}`;

/**
 * The changes that bring one environment from `current` to `target` (as `written` gives it),
 * in an order that never leaves the flag on without an active strategy on the way (which
 * would switch it off): switched off first when it ends off, new and re-activated
 * strategies before the others go, switched on last when it ends on.
 */
export function planEnvironment(
  environment: string,
  current: EnvironmentState,
  target: EnvironmentState,
): PlannedChange[] {
  const change = (action: PlannedChange["action"], description: string, payload: unknown): PlannedChange => ({
    action,
    environment,
    description,
    payload,
  });
  const changes: PlannedChange[] = [];
  if (current.enabled && !target.enabled)
    changes.push(change("updateEnabled", `Switch the flag off in ${environment}`, { enabled: false }));

  const now = new Map(current.strategies.map((strategy) => [strategy.id, strategy]));
  const kept = new Set<string>();
  const adds: PlannedChange[] = [];
  const updates: { active: boolean; change: PlannedChange }[] = [];
  const moves: { id: string; sortOrder: number }[] = [];
  for (const strategy of target.strategies) {
    const held = now.get(strategy.id);
    // An update keeps a title it does not name: one to clear is a strategy written anew.
    if (!held || (held.title !== null && strategy.title === null)) {
      const again = held ? "again, without its title" : "back";
      adds.push(
        change("addStrategy", `Add strategy ${label(strategy)} ${again}`, strategyPayload(strategy, true)),
      );
      continue;
    }
    kept.add(held.id);
    if (!sameContent(held, strategy)) {
      updates.push({
        active: !strategy.disabled,
        change: change("updateStrategy", `Change strategy ${label(held)} back`, {
          id: held.id,
          ...strategyPayload(strategy, false),
        }),
      });
    }
    if (held.sortOrder !== strategy.sortOrder) moves.push({ id: held.id, sortOrder: strategy.sortOrder });
  }
  changes.push(...adds);
  changes.push(...updates.filter((entry) => entry.active).map((entry) => entry.change));
  changes.push(...updates.filter((entry) => !entry.active).map((entry) => entry.change));
  for (const strategy of current.strategies) {
    if (!kept.has(strategy.id))
      changes.push(change("deleteStrategy", `Remove strategy ${label(strategy)}`, { id: strategy.id }));
  }
  if (moves.length > 0)
    changes.push(change("reorderStrategy", `Put the strategies back in their order`, moves));
  if (!isDeepStrictEqual(current.variants, target.variants)) {
    changes.push(
      change("patchVariant", `Set the variants back (${target.variants.length})`, {
        variants: settleable(target.variants),
      }),
    );
  }
  if (!current.enabled && target.enabled)
    changes.push(change("updateEnabled", `Switch the flag on in ${environment}`, { enabled: true }));
  return changes;
}

/** The changes that bring the flag's parents from `current` to `target`: those to drop go first. */
export function planDependencies(
  current: readonly ParentState[],
  target: readonly ParentState[],
): PlannedChange[] {
  const change = (action: PlannedChange["action"], description: string, payload: unknown): PlannedChange => ({
    action,
    environment: null,
    description,
    payload,
  });
  const wanted = new Map(target.map((parent) => [parent.feature, parent]));
  const held = new Map(current.map((parent) => [parent.feature, parent]));
  const changes: PlannedChange[] = [];
  for (const parent of current) {
    if (!wanted.has(parent.feature))
      changes.push(
        change("deleteDependency", `Stop depending on ${parent.feature}`, { feature: parent.feature }),
      );
  }
  for (const parent of target) {
    if (isDeepStrictEqual(held.get(parent.feature), parent)) continue;
    const payload = parent.enabled
      ? { feature: parent.feature, enabled: true, variants: parent.variants }
      : { feature: parent.feature, enabled: false };
    const verb = held.has(parent.feature) ? "Change the dependency on" : "Depend again on";
    changes.push(change("addDependency", `${verb} ${parent.feature}`, payload));
  }
  return changes;
}

/** The parents in one order, whatever order they were read or recorded in. */
export const sortParents = (parents: readonly ParentState[]): ParentState[] =>
  [...parents]
    .map(({ feature, enabled, variants }) => ({ feature, enabled, variants }))
    .sort((a, b) => (a.feature < b.feature ? -1 : a.feature > b.feature ? 1 : 0));

/** Why `actual` is not `target`, for each part that differs; none when they are the same, ids aside. */
export function differences(
  environment: string,
  actual: EnvironmentState,
  target: EnvironmentState,
): string[] {
  const found: string[] = [];
  if (actual.enabled !== target.enabled)
    found.push(`${environment} would be ${actual.enabled ? "on" : "off"}`);
  const same =
    actual.strategies.length === target.strategies.length &&
    actual.strategies.every(
      (strategy, index) =>
        sameContent(strategy, target.strategies[index]!) &&
        strategy.sortOrder === target.strategies[index]!.sortOrder,
    );
  if (!same) found.push(`the strategies in ${environment} would differ`);
  if (!isDeepStrictEqual(actual.variants, target.variants))
    found.push(`the variants in ${environment} would differ`);
  return found;
}
