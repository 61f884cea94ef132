import type { VariantRow } from "../../db/schema.js";
import type { EventType } from "../events/catalogue.js";
import type { StoredEvent } from "../events/schemas.js";
import type { StrategyView } from "../features/strategies/schemas.js";

// A flag's versions, and its state at each, rebuilt from the event log: from the flag as it
// is now, the events newer than the version are undone one by one, newest first, each by
// what it recorded it replaced (its preData, or for a switch its type). Pure: the service
// reads the events and the current state, this decides what they mean.

/** A strategy as a version has it, with the id it had then. */
export type StrategyState = Omit<StrategyView, "featureName">;

/** What a flag serves in one environment. */
export interface EnvironmentState {
  enabled: boolean;
  strategies: StrategyState[];
  variants: VariantRow[];
}

export interface ParentState {
  feature: string;
  enabled: boolean;
  variants: string[];
}

/** A part of the flag at a version: known, or why the log cannot say what it was. */
export type Known<T> = { known: true; value: T } | { known: false; why: string };

export interface FlagState {
  /** By environment name; an environment left out has nothing: off, no strategies, no variants. */
  environments: Map<string, Known<EnvironmentState>>;
  dependencies: Known<ParentState[]>;
}

/** An event of the flag's, with the moment of its transaction (shared by one change's events). */
export type HistoryEvent = StoredEvent & { transaction?: string };

export const emptyEnvironment = (): EnvironmentState => ({ enabled: false, strategies: [], variants: [] });

/** The events that change what a flag serves: each change that records one is a version. */
export const VERSION_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  "feature-created",
  "feature-revived",
  "feature-strategy-add",
  "feature-strategy-update",
  "feature-strategy-remove",
  "strategy-order-changed",
  "feature-environment-enabled",
  "feature-environment-disabled",
  "feature-environment-variants-updated",
  "feature-variants-updated",
  "feature-dependency-added",
  "feature-dependency-removed",
  "feature-dependencies-removed",
  "feature-version-restored",
]);

/**
 * Events that change flags' environments without naming the flag: a project's environment
 * leaving it takes its flags' state there along; one joining it starts empty.
 */
export const ENVIRONMENT_TYPES: readonly EventType[] = [
  "project-environment-added",
  "project-environment-removed",
  "environment-created",
  "environment-deleted",
];

/** The flag's life: its events since its latest creation (those before belong to a flag of the same name, deleted since). */
export function lifeOf<T extends HistoryEvent>(events: readonly T[]): T[] {
  let start = 0;
  events.forEach((event, index) => {
    if (event.type === "feature-created") start = index;
  });
  return events.slice(start);
}

export interface Version {
  eventId: number;
  type: string;
  createdAt: string;
  createdBy: string;
  environment: string | null;
  events: { id: number; type: string; environment: string | null }[];
}

/**
 * The flag's versions, oldest first: one per change, a change being the events of the
 * flag that one transaction recorded (the same transaction moment and author). Its id is
 * its last event's; the state "at" it is the state after that change, whole.
 */
export function versionsOf(life: readonly HistoryEvent[]): Version[] {
  const versions: Version[] = [];
  let key: string | undefined;
  for (const event of life) {
    if (!VERSION_TYPES.has(event.type)) continue;
    const eventKey = `${event.transaction ?? event.createdAt}\u0000${event.createdBy}`;
    const entry = { id: event.id, type: event.type, environment: event.environment };
    const last = versions.at(-1);
    if (last && key === eventKey) {
      last.events.push(entry);
      last.eventId = event.id;
      last.type = event.type;
      const named = new Set(last.events.map((e) => e.environment));
      last.environment = named.size === 1 ? [...named][0]! : null;
    } else {
      versions.push({
        eventId: event.id,
        type: event.type,
        createdAt: event.createdAt,
        createdBy: event.createdBy,
        environment: event.environment,
        events: [entry],
      });
    }
    key = eventKey;
  }
  return versions;
}

/** When each strategy was added, as an event id: what orders strategies of the same position. */
export function birthsOf(life: readonly HistoryEvent[]): Map<string, number> {
  const born = new Map<string, number>();
  for (const event of life) {
    if (event.type === "feature-strategy-add") born.set((event.data as StrategyView).id, event.id);
    if (event.type === "feature-created") {
      const view = event.data as { environments?: { strategies?: { id: string }[] }[] } | null;
      for (const env of view?.environments ?? []) {
        for (const strategy of env.strategies ?? []) born.set(strategy.id, event.id);
      }
    }
  }
  return born;
}

/** Strategies in the order the service keeps them: by position, then by age. */
export function sortStrategies(
  strategies: StrategyState[],
  born: ReadonlyMap<string, number>,
): StrategyState[] {
  return [...strategies].sort(
    (a, b) =>
      a.sortOrder - b.sortOrder ||
      (born.get(a.id) ?? 0) - (born.get(b.id) ?? 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** A strategy as the admin API shows it, or an event recorded it, as a version holds it: its fields alone. */
export const strategyState = (strategy: StrategyView): StrategyState => ({
  id: strategy.id,
  name: strategy.name,
  title: strategy.title ?? null,
  disabled: strategy.disabled ?? false,
  sortOrder: strategy.sortOrder ?? 0,
  segments: strategy.segments ?? [],
  constraints: strategy.constraints ?? [],
  variants: strategy.variants ?? [],
  parameters: strategy.parameters ?? {},
});

/** The log cannot say what the part was before an event: it is unknown from there back. */
class Gap extends Error {}

/** An event that does not fit the state it is undone on. */
const unaccounted = (what: string) => new Gap(`the event log does not account for it: ${what}`);

const describe = (event: HistoryEvent) => `event ${event.id} (${event.type})`;

function requireStrategy(env: EnvironmentState, id: string, event: HistoryEvent): number {
  const index = env.strategies.findIndex((strategy) => strategy.id === id);
  if (index < 0) throw unaccounted(`strategy ${id}, which ${describe(event)} names, is not there`);
  return index;
}

/**
 * The flag's state before `event`, from its state after: `state` is changed in place.
 * `project` is the flag's project after the event; the answer, its project before.
 */
function undo(
  state: FlagState,
  event: HistoryEvent,
  project: string,
  born: ReadonlyMap<string, number>,
): string {
  const editEnvironment = (name: string | null, edit: (env: EnvironmentState) => void) => {
    if (name === null) return;
    const known = state.environments.get(name) ?? { known: true, value: emptyEnvironment() };
    if (!known.known) return;
    const env: EnvironmentState = {
      enabled: known.value.enabled,
      strategies: [...known.value.strategies],
      variants: known.value.variants,
    };
    try {
      edit(env);
      state.environments.set(name, { known: true, value: env });
    } catch (error) {
      if (!(error instanceof Gap)) throw error;
      state.environments.set(name, {
        known: false,
        why: error.message,
      });
    }
  };
  const missingPreData = (what: string) => {
    throw new Gap(`${describe(event)} was recorded before events kept ${what}`);
  };
  const data = event.data as Record<string, unknown> | null;
  const preData = event.preData as Record<string, unknown> | null;

  switch (event.type) {
    case "feature-strategy-add":
      editEnvironment(event.environment, (env) => {
        env.strategies.splice(requireStrategy(env, (data as StrategyView).id, event), 1);
      });
      break;
    case "feature-strategy-update":
      editEnvironment(event.environment, (env) => {
        // An update keeps the strategy's position.
        const before = strategyState(preData as StrategyView);
        env.strategies[requireStrategy(env, before.id, event)] = before;
      });
      break;
    case "feature-strategy-remove":
      editEnvironment(event.environment, (env) => {
        const before = strategyState(preData as StrategyView);
        if (env.strategies.some((strategy) => strategy.id === before.id)) {
          throw unaccounted(`strategy ${before.id}, which ${describe(event)} removed, is there`);
        }
        env.strategies = sortStrategies([...env.strategies, before], born);
      });
      break;
    case "strategy-order-changed":
      editEnvironment(event.environment, (env) => {
        const positions = event.preData as { id: string; sortOrder: number }[] | null;
        if (!Array.isArray(positions)) return missingPreData("the positions it replaced");
        const previous = new Map(positions.map((entry) => [entry.id, entry.sortOrder]));
        env.strategies = sortStrategies(
          env.strategies.map((strategy) => ({
            ...strategy,
            sortOrder: previous.get(strategy.id) ?? strategy.sortOrder,
          })),
          born,
        );
      });
      break;
    case "feature-environment-enabled":
    case "feature-environment-disabled":
      editEnvironment(event.environment, (env) => {
        const enabled = event.type === "feature-environment-enabled";
        if (env.enabled !== enabled)
          throw unaccounted(`${describe(event)} finds the flag ${env.enabled ? "on" : "off"}`);
        env.enabled = !enabled;
      });
      break;
    case "feature-environment-variants-updated":
    case "feature-variants-updated":
      editEnvironment(event.environment, (env) => {
        const variants = preData?.variants as VariantRow[] | undefined;
        if (!Array.isArray(variants)) return missingPreData("the variants it replaced");
        env.variants = variants;
      });
      break;
    case "feature-dependency-added":
    case "feature-dependency-removed":
    case "feature-dependencies-removed": {
      if (!state.dependencies.known) break;
      const parents = preData?.parents as ParentState[] | undefined;
      state.dependencies = Array.isArray(parents)
        ? {
            known: true,
            value: parents.map(({ feature, enabled, variants }) => ({ feature, enabled, variants })),
          }
        : { known: false, why: `${describe(event)} was recorded before events kept the parents it replaced` };
      break;
    }
    case "feature-revived": {
      const enabledIn = preData?.enabledIn as string[] | undefined;
      const names = new Set([...state.environments.keys(), ...(Array.isArray(enabledIn) ? enabledIn : [])]);
      for (const name of names) {
        editEnvironment(name, (env) => {
          if (!Array.isArray(enabledIn)) return missingPreData("where the flag was on");
          env.enabled = enabledIn.includes(name);
        });
      }
      break;
    }
    case "feature-project-change":
      return String(data?.oldProject ?? project);
    case "project-environment-added":
    case "environment-created": {
      const name = event.environment ?? String(data?.name ?? data?.environment ?? "");
      if (event.type === "environment-created" || event.project === project) state.environments.delete(name);
      break;
    }
    case "project-environment-removed":
    case "environment-deleted": {
      const name = event.environment ?? String(preData?.name ?? preData?.environment ?? "");
      if (event.type === "environment-deleted" || event.project === project) {
        state.environments.set(name, {
          known: false,
          why: `environment ${name} left project ${project} (${describe(event)}), taking the flag's state there with it`,
        });
      }
      break;
    }
  }
  return project;
}

/**
 * The flag's state after the event `version`, from its state now: the events after it
 * (`newer`, oldest first: the flag's own and those of `ENVIRONMENT_TYPES`) are undone,
 * newest first.
 */
export function rewind(
  now: FlagState,
  project: string,
  newer: readonly HistoryEvent[],
  born: ReadonlyMap<string, number>,
): FlagState {
  const state: FlagState = { environments: new Map(now.environments), dependencies: now.dependencies };
  for (let index = newer.length - 1; index >= 0; index--) {
    project = undo(state, newer[index]!, project, born);
  }
  return state;
}
