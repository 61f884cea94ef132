import type { FeatureDefinition, SegmentDefinition, StrategyDefinition } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";

/** A flag as SDKs see it in one environment, with what the listing filters on. */
export interface SdkFeature {
  definition: FeatureDefinition;
  project: string;
  /** `type:value` of each of the flag's tags. */
  tags: ReadonlySet<string>;
}

export interface EnvironmentContent {
  features: SdkFeature[];
  segments: Map<number, SegmentDefinition>;
}

// Parameters are strings on the wire; older writers stored numbers.
const asStrings = (parameters: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key, String(value)]));

/**
 * Everything SDKs may see of one environment, read in five queries. This runs once per
 * change, never per SDK request: the service keeps the result in memory.
 */
export async function readEnvironment(db: Db, environment: string): Promise<EnvironmentContent> {
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
        "fe.variants",
      ])
      .where("f.archived_at", "is", null)
      .orderBy("f.name")
      .execute(),
    db
      .selectFrom("feature_strategies")
      .select(["feature_name", "strategy_name", "parameters", "constraints", "variants", "segments"])
      .where("environment", "=", environment)
      .where("disabled", "=", false)
      .orderBy("feature_name")
      .orderBy("sort_order")
      .orderBy("created_at")
      .execute(),
    db.selectFrom("feature_dependencies").selectAll().orderBy("child").orderBy("parent").execute(),
    db.selectFrom("segments").select(["id", "name", "constraints"]).orderBy("id").execute(),
    db.selectFrom("feature_tags").select(["feature_name", "tag_type", "tag_value"]).execute(),
  ]);

  const strategiesOf = new Map<string, StrategyDefinition[]>();
  for (const row of strategies) {
    const list = strategiesOf.get(row.feature_name) ?? [];
    // As the reference: segment ids in order, and no list at all for a strategy without any.
    list.push({
      name: row.strategy_name,
      constraints: row.constraints,
      parameters: asStrings(row.parameters),
      variants: row.variants,
      ...(row.segments.length > 0 ? { segments: [...row.segments].sort((a, b) => a - b) } : {}),
    });
    strategiesOf.set(row.feature_name, list);
  }
  const dependenciesOf = new Map<string, FeatureDefinition["dependencies"]>();
  for (const row of dependencies) {
    const list = dependenciesOf.get(row.child) ?? [];
    list.push(
      row.enabled
        ? { feature: row.parent, enabled: true, variants: row.variants }
        : { feature: row.parent, enabled: false },
    );
    dependenciesOf.set(row.child, list);
  }
  const tagsOf = new Map<string, Set<string>>();
  for (const row of tags) {
    const set = tagsOf.get(row.feature_name) ?? new Set<string>();
    set.add(`${row.tag_type}:${row.tag_value}`);
    tagsOf.set(row.feature_name, set);
  }

  return {
    features: features.map((row) => {
      const definition: FeatureDefinition = {
        name: row.name,
        type: row.type,
        description: row.description,
        project: row.project,
        stale: row.stale,
        enabled: row.enabled ?? false,
        impressionData: row.impression_data,
        strategies: strategiesOf.get(row.name) ?? [],
        variants: row.variants ?? [],
      };
      const dependencies = dependenciesOf.get(row.name);
      if (dependencies) definition.dependencies = dependencies;
      return { definition, project: row.project, tags: tagsOf.get(row.name) ?? new Set() };
    }),
    segments: new Map(
      segments.map((row) => [row.id, { id: row.id, name: row.name, constraints: row.constraints }]),
    ),
  };
}
