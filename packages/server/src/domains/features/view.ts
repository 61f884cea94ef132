import type { Db } from "../../db/connection.js";
import { type FeatureRow, featureStore, type StrategyRow } from "./store.js";

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const strategyView = (row: StrategyRow) => ({
  id: row.id,
  name: row.strategy_name,
  title: row.title,
  disabled: row.disabled,
  featureName: row.feature_name,
  sortOrder: row.sort_order,
  segments: row.segments,
  constraints: row.constraints,
  variants: row.variants,
  parameters: row.parameters,
});

export type StrategyView = ReturnType<typeof strategyView>;

const LIFECYCLE_ORDER = ["initial", "pre-live", "live", "completed", "archived"];

/** Reads what the Feature schema shows of each flag: environments, strategies, tags, links. */
async function related(db: Db, names: string[]) {
  const [environments, strategies, tags, parents, children, lifecycle] = await Promise.all([
    featureStore.environments(db, names),
    featureStore.strategies(db, names),
    featureStore.tags(db, names),
    featureStore.parentsOf(db, names),
    featureStore.childrenOf(db, names),
    featureStore.lifecycle(db, names),
  ]);
  const group = <T>(rows: T[], key: (row: T) => string) => {
    const map = new Map<string, T[]>();
    for (const row of rows) map.set(key(row), [...(map.get(key(row)) ?? []), row]);
    return (name: string) => map.get(name) ?? [];
  };
  return {
    environments: group(environments, (row) => row.feature_name),
    strategies: group(strategies, (row) => `${row.feature_name}\u0000${row.environment}`),
    tags: group(tags, (row) => row.feature_name),
    parents: group(parents, (row) => row.child),
    children: group(children, (row) => row.parent),
    lifecycle: group(lifecycle, (row) => row.feature),
  };
}

/** The current lifecycle stage: the latest one entered, later stages winning ties. */
function currentStage(rows: { stage: string; created_at: Date }[]) {
  const latest = [...rows]
    .sort(
      (a, b) =>
        a.created_at.getTime() - b.created_at.getTime() ||
        LIFECYCLE_ORDER.indexOf(a.stage) - LIFECYCLE_ORDER.indexOf(b.stage),
    )
    .at(-1);
  return latest ? { stage: latest.stage, enteredStageAt: latest.created_at.toISOString() } : undefined;
}

/** Full Feature schema views, in the order of `rows`. */
export async function featureViews(db: Db, rows: FeatureRow[]) {
  const linked = await related(
    db,
    rows.map((row) => row.name),
  );
  return rows.map((row) => {
    const environments = linked.environments(row.name).map((env) => {
      const strategies = linked.strategies(`${row.name}\u0000${env.environment}`).map(strategyView);
      return {
        name: env.environment,
        featureName: row.name,
        environment: env.environment,
        type: env.type,
        enabled: env.enabled,
        sortOrder: env.sort_order,
        variantCount: env.variants.length,
        strategies,
        variants: env.variants,
        lastSeenAt: iso(env.last_seen_at),
        hasStrategies: strategies.length > 0,
        hasEnabledStrategies: strategies.some((strategy) => !strategy.disabled),
      };
    });
    const tags = linked.tags(row.name).map((tag) => ({ type: tag.tag_type, value: tag.tag_value }));
    return {
      name: row.name,
      type: row.type,
      description: row.description,
      project: row.project,
      enabled: environments.some((env) => env.enabled),
      stale: row.stale,
      favorite: false,
      impressionData: row.impression_data,
      archived: row.archived_at !== null,
      archivedAt: iso(row.archived_at),
      createdAt: iso(row.created_at),
      createdBy: { id: row.created_by_user_id ?? 0, name: row.created_by ?? "unknown", imageUrl: "" },
      lastSeenAt: iso(row.last_seen_at),
      environments,
      // Deprecated in the reference since v5: flag variants live per environment.
      variants: environments[0]?.variants ?? [],
      strategies: [],
      tags,
      children: linked.children(row.name).map((child) => child.child),
      dependencies: linked.parents(row.name).map((dependency) => ({
        feature: dependency.parent,
        enabled: dependency.enabled,
        variants: dependency.variants,
      })),
      lifecycle: currentStage(linked.lifecycle(row.name)),
      collaborators: { users: [] },
    };
  });
}

export type FeatureView = Awaited<ReturnType<typeof featureViews>>[number];

/** The slimmer entries of a project's flag listing (endpoint 14). */
export async function projectListing(db: Db, rows: FeatureRow[]) {
  return (await featureViews(db, rows)).map((feature) => ({
    name: feature.name,
    type: feature.type,
    description: feature.description,
    stale: feature.stale,
    favorite: false,
    impressionData: feature.impressionData,
    createdAt: feature.createdAt,
    lastSeenAt: feature.lastSeenAt,
    environments: feature.environments.map((env) => ({
      name: env.name,
      type: env.type,
      enabled: env.enabled,
      sortOrder: env.sortOrder,
      variantCount: env.variantCount,
      lastSeenAt: env.lastSeenAt,
      hasStrategies: env.hasStrategies,
      hasEnabledStrategies: env.hasEnabledStrategies,
    })),
    tags: feature.tags,
  }));
}
