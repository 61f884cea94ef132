import type { Flag, Strategy } from "../flags/queries";
import {
  describeReleaseChange,
  RELEASE_ACTIONS,
  type ReleaseContext,
  releaseChangeDiff,
} from "./release-diff";

/** A change's target as it is now, and as the change would leave it; null where it does not exist. */
export interface Diff {
  before: unknown;
  after: unknown;
}

type Payload = Record<string, unknown>;
const record = (value: unknown): Payload =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Payload) : {};

/**
 * A strategy compared field by field, whether it is stored or carried by a change: fields
 * a change leaves out are what the service stores for them, so only real edits differ.
 */
export function comparableStrategy(strategy: Payload) {
  return {
    name: strategy.name,
    title: strategy.title ?? null,
    disabled: strategy.disabled ?? false,
    parameters: strategy.parameters ?? {},
    constraints: strategy.constraints ?? [],
    segments: strategy.segments ?? [],
    variants: strategy.variants ?? [],
  };
}

const strategyName = (strategy: Pick<Strategy, "name" | "title" | "id">) =>
  `${strategy.title || strategy.name} (${strategy.id})`;

export interface Segment {
  id: number;
  name: string;
  description?: string | null;
  project?: string | null;
  constraints: unknown[];
}

const comparableSegment = (segment: Payload) => ({
  name: segment.name,
  description: segment.description ?? null,
  project: segment.project ?? null,
  constraints: segment.constraints ?? [],
});

/**
 * What a flag's change would do to the flag as it is now in the request's environment: the
 * enabled state, the strategy of the same id, the variants, the dependency, the release plan
 * and safeguards (`release`). `flag` missing (deleted, or not loaded): only what the change holds.
 */
export function flagChangeDiff(
  action: string,
  rawPayload: unknown,
  flag: Flag | undefined,
  environment: string,
  release: ReleaseContext = {},
): Diff {
  const payload = record(rawPayload);
  const here = flag?.environments.find((candidate) => candidate.name === environment);
  if (RELEASE_ACTIONS.has(action))
    return releaseChangeDiff(action, rawPayload, { ...release, strategies: here?.strategies });
  const strategyNow = (id: unknown) => here?.strategies.find((strategy) => strategy.id === id);
  switch (action) {
    case "updateEnabled":
      return { before: here && { enabled: here.enabled }, after: { enabled: payload.enabled } };
    case "addStrategy":
      return { before: null, after: comparableStrategy(payload) };
    case "updateStrategy": {
      const now = strategyNow(payload.id);
      return { before: now ? comparableStrategy(now) : null, after: comparableStrategy(payload) };
    }
    case "deleteStrategy": {
      const now = strategyNow(payload.id);
      return { before: now ? comparableStrategy(now) : null, after: null };
    }
    case "reorderStrategy": {
      const order = Array.isArray(rawPayload) ? (rawPayload as { id: string; sortOrder: number }[]) : [];
      const strategies = here?.strategies ?? [];
      const named = (id: string) => {
        const strategy = strategies.find((candidate) => candidate.id === id);
        return strategy ? strategyName(strategy) : `deleted strategy (${id})`;
      };
      return {
        before: { order: strategies.map(strategyName) },
        after: {
          order: [...order].sort((a, b) => a.sortOrder - b.sortOrder).map((entry) => named(entry.id)),
        },
      };
    }
    case "patchVariant":
      return { before: here && { variants: here.variants }, after: { variants: payload.variants ?? [] } };
    case "archiveFeature":
      return { before: flag && { archived: flag.archived }, after: { archived: true } };
    case "addDependency": {
      const now = flag?.dependencies.find((dependency) => dependency.feature === payload.feature);
      return {
        before: now ?? null,
        after: {
          feature: payload.feature,
          enabled: payload.enabled ?? true,
          variants: payload.variants ?? [],
        },
      };
    }
    case "deleteDependency": {
      const dependencies = flag?.dependencies ?? [];
      const before =
        payload.feature === undefined
          ? { dependencies }
          : (dependencies.find((dependency) => dependency.feature === payload.feature) ?? null);
      return { before, after: payload.feature === undefined ? { dependencies: [] } : null };
    }
    default:
      return { before: null, after: rawPayload };
  }
}

/** What a segment's change would do to the segment as it is now. */
export function segmentChangeDiff(action: string, rawPayload: unknown, segment: Segment | undefined): Diff {
  const payload = record(rawPayload);
  const before = segment ? comparableSegment(segment as unknown as Payload) : null;
  if (action === "updateSegment") return { before, after: comparableSegment(payload) };
  if (action === "deleteSegment") return { before, after: null };
  return { before: null, after: rawPayload };
}

/** One line saying what a change does, for its heading; release changes name what `release` knows. */
export function describeChange(
  action: string,
  rawPayload: unknown,
  environment: string,
  release: ReleaseContext = {},
): string {
  if (RELEASE_ACTIONS.has(action)) return describeReleaseChange(action, rawPayload, environment, release);
  const payload = record(rawPayload);
  const strategy = () => String(payload.title || payload.name || payload.id || "a strategy");
  switch (action) {
    case "updateEnabled":
      return payload.enabled
        ? `Enable the flag in ${environment}${payload.shouldActivateDisabledStrategies ? ", enabling its disabled strategies" : ""}`
        : `Disable the flag in ${environment}`;
    case "addStrategy":
      return `Add strategy ${strategy()}`;
    case "updateStrategy":
      return `Change strategy ${strategy()}`;
    case "deleteStrategy":
      return `Delete strategy ${strategy()}`;
    case "reorderStrategy":
      return "Change the order of the strategies";
    case "patchVariant":
      return `Change the variants in ${environment}`;
    case "archiveFeature":
      return "Archive the flag";
    case "addDependency":
      return `Make the flag depend on ${String(payload.feature)}`;
    case "deleteDependency":
      return payload.feature === undefined
        ? "Remove every dependency"
        : `Remove the dependency on ${String(payload.feature)}`;
    case "updateSegment":
      return `Change segment ${String(payload.name ?? payload.id)}`;
    case "deleteSegment":
      return `Delete segment ${String(payload.name ?? payload.id)}`;
    default:
      return action;
  }
}
