import type { FeatureDefinition, SegmentDefinition, StrategyDefinition } from "@signalbox/protocol";
import { sql } from "kysely";
import type { Db } from "../../db/connection.js";

/** A flag as SDKs see it in one environment, with what the listing filters on. */
export interface SdkFeature {
  definition: FeatureDefinition;
  project: string;
  /** `type:value` of each of the flag's tags. */
  tags: ReadonlySet<string>;
  /** The values of the rows it was made from: a flag whose rows are unchanged is kept from the last read. */
  source: readonly unknown[];
}

export interface EnvironmentContent {
  features: SdkFeature[];
  /** The same map as the last read's when no segment changed. */
  segments: Map<number, SegmentDefinition>;
}

// Parameters are strings on the wire; older writers stored numbers.
const asStrings = (parameters: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key, String(value)]));

interface StrategyRow {
  strategy_name: string;
  parameters: string;
  constraints: string;
  variants: string;
  segments: number[];
}

interface DependencyRow {
  parent: string;
  enabled: boolean;
  variants: string;
}

function groupBy<T>(rows: T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/**
 * Everything SDKs may see of one environment, read in five queries. This runs once per
 * change, never per SDK request: the service keeps the result in memory. JSON columns are
 * read as text, and only the flags whose rows differ from `previous` are parsed and built
 * again: the others, most of them after a change to one flag, are `previous`'s own objects.
 */
export async function readEnvironment(
  db: Db,
  environment: string,
  previous?: EnvironmentContent,
): Promise<EnvironmentContent> {
  const [features, strategies, dependencies, segments, tags] = await Promise.all([
    db
      .selectFrom("features as f")
      .leftJoin("feature_environments as fe", (join) =>
        join.onRef("fe.feature_name", "=", "f.name").on("fe.environment", "=", environment),
      )
      .select([
        "f.name",
        "f.type",
        "f.description",
        "f.project",
        "f.stale",
        "f.impression_data",
        "fe.enabled",
        sql<string | null>`fe.variants::text`.as("variants"),
      ])
      .where("f.archived_at", "is", null)
      .orderBy("f.name")
      .execute(),
    db
      .selectFrom("feature_strategies")
      .select([
        "feature_name",
        "strategy_name",
        sql<string>`parameters::text`.as("parameters"),
        sql<string>`constraints::text`.as("constraints"),
        sql<string>`variants::text`.as("variants"),
        "segments",
      ])
      .where("environment", "=", environment)
      .where("disabled", "=", false)
      .orderBy("feature_name")
      .orderBy("sort_order")
      .orderBy("created_at")
      .execute(),
    db
      .selectFrom("feature_dependencies")
      .select(["child", "parent", "enabled", sql<string>`variants::text`.as("variants")])
      .orderBy("child")
      .orderBy("parent")
      .execute(),
    db
      .selectFrom("segments")
      .select(["id", "name", sql<string>`constraints::text`.as("constraints")])
      .orderBy("id")
      .execute(),
    db
      .selectFrom("feature_tags")
      .select(["feature_name", "tag_type", "tag_value"])
      .orderBy("feature_name")
      .orderBy("tag_type")
      .orderBy("tag_value")
      .execute(),
  ]);

  const strategiesOf = groupBy(strategies, (row) => row.feature_name);
  const dependenciesOf = groupBy(dependencies, (row) => row.child);
  const tagsOf = groupBy(tags, (row) => row.feature_name);
  const before = new Map(previous?.features.map((feature) => [feature.definition.name, feature]));

  return {
    features: features.map((row) => {
      const strategyRows = strategiesOf.get(row.name) ?? [];
      const dependencyRows = dependenciesOf.get(row.name) ?? [];
      const tagNames = (tagsOf.get(row.name) ?? []).map((tag) => `${tag.tag_type}:${tag.tag_value}`);
      // Every value the flag is made from, in an order fixed by the counts of its rows.
      const source: unknown[] = [row.name, row.type, row.description, row.project, row.stale];
      source.push(row.impression_data, row.enabled, row.variants, strategyRows.length);
      for (const s of strategyRows) {
        source.push(s.strategy_name, s.parameters, s.constraints, s.variants, s.segments.join(","));
      }
      source.push(dependencyRows.length);
      for (const d of dependencyRows) source.push(d.parent, d.enabled, d.variants);
      source.push(...tagNames);
      const kept = before.get(row.name);
      if (kept && sameValues(kept.source, source)) return kept;
      const definition: FeatureDefinition = {
        name: row.name,
        type: row.type,
        description: row.description,
        project: row.project,
        stale: row.stale,
        enabled: row.enabled ?? false,
        impressionData: row.impression_data,
        strategies: strategyRows.map(strategyOf),
        variants: row.variants === null ? [] : JSON.parse(row.variants),
      };
      if (dependencyRows.length > 0) definition.dependencies = dependencyRows.map(dependencyOf);
      return { definition, project: row.project, tags: new Set(tagNames), source };
    }),
    segments: segmentsOf(segments, previous?.segments),
  };
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((value, index) => value === b[index]);

// As the reference: segment ids in order, and no list at all for a strategy without any.
const strategyOf = (row: StrategyRow): StrategyDefinition => ({
  name: row.strategy_name,
  constraints: JSON.parse(row.constraints),
  parameters: asStrings(JSON.parse(row.parameters)),
  variants: JSON.parse(row.variants),
  ...(row.segments.length > 0 ? { segments: [...row.segments].sort((a, b) => a - b) } : {}),
});

const dependencyOf = (row: DependencyRow): NonNullable<FeatureDefinition["dependencies"]>[number] =>
  row.enabled
    ? { feature: row.parent, enabled: true, variants: JSON.parse(row.variants) }
    : { feature: row.parent, enabled: false };

/** The segments, as the last read's map when none changed, so that what was made from it still holds. */
function segmentsOf(
  rows: { id: number; name: string; constraints: string }[],
  previous: Map<number, SegmentDefinition> | undefined,
): Map<number, SegmentDefinition> {
  const segments = new Map(
    rows.map((row) => [row.id, { id: row.id, name: row.name, constraints: JSON.parse(row.constraints) }]),
  );
  const same =
    previous?.size === segments.size &&
    [...segments.values()].every(
      (segment) => JSON.stringify(segment) === JSON.stringify(previous.get(segment.id)),
    );
  return same ? previous : segments;
}
