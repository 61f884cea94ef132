import type { Selectable, Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ConstraintRow, FeatureStrategyTable, FeatureTable, VariantRow } from "../../db/schema.js";

export type FeatureRow = Selectable<FeatureTable>;
export type StrategyRow = Selectable<FeatureStrategyTable>;

export interface StrategyValues {
  name: string;
  title: string | null;
  disabled: boolean;
  sortOrder: number;
  parameters: Record<string, string>;
  constraints: ConstraintRow[];
  variants: VariantRow[];
  segments: number[];
}

const strategyColumns = (values: Partial<StrategyValues>) => ({
  ...(values.name !== undefined ? { strategy_name: values.name } : {}),
  ...(values.title !== undefined ? { title: values.title } : {}),
  ...(values.disabled !== undefined ? { disabled: values.disabled } : {}),
  ...(values.sortOrder !== undefined ? { sort_order: values.sortOrder } : {}),
  ...(values.parameters !== undefined ? { parameters: JSON.stringify(values.parameters) } : {}),
  ...(values.constraints !== undefined ? { constraints: JSON.stringify(values.constraints) } : {}),
  ...(values.variants !== undefined ? { variants: JSON.stringify(values.variants) } : {}),
  ...(values.segments !== undefined ? { segments: values.segments } : {}),
});

export const featureStore = {
  find: (db: Db, name: string) =>
    db.selectFrom("features").selectAll().where("name", "=", name).executeTakeFirst(),

  insert: (
    db: Db,
    feature: {
      name: string;
      project: string;
      type: string;
      description: string | null;
      impressionData: boolean;
      createdBy: string;
    },
  ) =>
    db
      .insertInto("features")
      .values({
        name: feature.name,
        project: feature.project,
        type: feature.type,
        description: feature.description,
        impression_data: feature.impressionData,
        created_by: feature.createdBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),

  update: (db: Db, name: string, changes: Updateable<FeatureTable>) =>
    db.updateTable("features").set(changes).where("name", "=", name).execute(),

  remove: (db: Db, name: string) => db.deleteFrom("features").where("name", "=", name).execute(),

  countActive: async (db: Db, project: string) =>
    Number(
      (
        await db
          .selectFrom("features")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("project", "=", project)
          .where("archived_at", "is", null)
          .executeTakeFirst()
      )?.count ?? 0,
    ),

  /** A project's flags, newest first, for the project listing (endpoint 14). */
  inProject: (db: Db, project: string, namePrefix: string | undefined) => {
    let query = db
      .selectFrom("features")
      .selectAll()
      .where("project", "=", project)
      .where("archived_at", "is", null);
    if (namePrefix) query = query.where("name", "like", `${namePrefix.replace(/[\\%_]/g, "\\$&")}%`);
    return query.orderBy("created_at", "desc").orderBy("name").execute();
  },

  archived: (db: Db, project: string | undefined) => {
    let query = db.selectFrom("features").selectAll().where("archived_at", "is not", null);
    if (project) query = query.where("project", "=", project);
    return query.orderBy("archived_at", "desc").execute();
  },

  environments: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_environments as fe")
          .innerJoin("environments as e", "e.name", "fe.environment")
          .select([
            "fe.feature_name",
            "fe.environment",
            "fe.enabled",
            "fe.variants",
            "fe.last_seen_at",
            "e.type",
            "e.sort_order",
          ])
          .where("fe.feature_name", "in", names)
          .orderBy("e.sort_order")
          .orderBy("e.name")
          .execute(),

  addEnvironments: async (db: Db, name: string, environments: string[], variants: VariantRow[] = []) => {
    if (environments.length === 0) return;
    await db
      .insertInto("feature_environments")
      .values(
        environments.map((environment) => ({
          feature_name: name,
          environment,
          variants: JSON.stringify(variants),
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  setEnabled: (db: Db, name: string, environment: string, enabled: boolean) =>
    db
      .updateTable("feature_environments")
      .set({ enabled })
      .where("feature_name", "=", name)
      .where("environment", "=", environment)
      .execute(),

  setVariants: async (db: Db, name: string, environments: string[], variants: VariantRow[]) => {
    // A project may have no environments at all: `in ()` is not SQL.
    if (environments.length === 0) return;
    await db
      .updateTable("feature_environments")
      .set({ variants: JSON.stringify(variants) })
      .where("feature_name", "=", name)
      .where("environment", "in", environments)
      .execute();
  },

  strategies: (db: Db, names: string[], environment?: string) => {
    if (names.length === 0) return Promise.resolve([]);
    let query = db.selectFrom("feature_strategies").selectAll().where("feature_name", "in", names);
    if (environment) query = query.where("environment", "=", environment);
    return query.orderBy("sort_order").orderBy("created_at").orderBy("id").execute();
  },

  /** After every strategy of the flag in the environment: where the reference puts a new one. */
  nextSortOrder: async (db: Db, name: string, environment: string) => {
    const row = await db
      .selectFrom("feature_strategies")
      .select((eb) => eb.fn.max("sort_order").as("max"))
      .where("feature_name", "=", name)
      .where("environment", "=", environment)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
  },

  strategy: (db: Db, id: string) =>
    db.selectFrom("feature_strategies").selectAll().where("id", "=", id).executeTakeFirst(),

  insertStrategy: (
    db: Db,
    strategy: StrategyValues & { id: string; featureName: string; project: string; environment: string },
  ) =>
    db
      .insertInto("feature_strategies")
      .values({
        id: strategy.id,
        feature_name: strategy.featureName,
        project_name: strategy.project,
        environment: strategy.environment,
        strategy_name: strategy.name,
        title: strategy.title,
        disabled: strategy.disabled,
        sort_order: strategy.sortOrder,
        parameters: JSON.stringify(strategy.parameters),
        constraints: JSON.stringify(strategy.constraints),
        variants: JSON.stringify(strategy.variants),
        segments: strategy.segments,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),

  updateStrategy: (db: Db, id: string, values: Partial<StrategyValues>) =>
    db
      .updateTable("feature_strategies")
      .set(strategyColumns(values))
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow(),

  removeStrategy: (db: Db, id: string) => db.deleteFrom("feature_strategies").where("id", "=", id).execute(),

  moveToProject: (db: Db, name: string, project: string) =>
    db
      .updateTable("feature_strategies")
      .set({ project_name: project })
      .where("feature_name", "=", name)
      .execute(),

  tags: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_tags")
          .select(["feature_name", "tag_type", "tag_value"])
          .where("feature_name", "in", names)
          .orderBy("created_at")
          .orderBy("tag_type")
          .orderBy("tag_value")
          .execute(),

  /** Adds a tag; false when the flag already had it. */
  addTag: async (db: Db, name: string, type: string, value: string) =>
    (
      await db
        .insertInto("feature_tags")
        .values({ feature_name: name, tag_type: type, tag_value: value })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst()
    ).numInsertedOrUpdatedRows === 1n,

  /** Removes a tag; false when the flag did not have it. */
  removeTag: async (db: Db, name: string, type: string, value: string) =>
    (
      await db
        .deleteFrom("feature_tags")
        .where("feature_name", "=", name)
        .where("tag_type", "=", type)
        .where("tag_value", "=", value)
        .executeTakeFirst()
    ).numDeletedRows === 1n,

  parentsOf: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies")
          .selectAll()
          .where("child", "in", names)
          .orderBy("parent")
          .execute(),

  childrenOf: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies as d")
          .innerJoin("features as f", "f.name", "d.child")
          .select(["d.parent", "d.child"])
          .where("d.parent", "in", names)
          .where("f.archived_at", "is", null)
          .orderBy("d.child")
          .execute(),

  addDependency: (db: Db, child: string, parent: string, enabled: boolean, variants: string[]) =>
    db
      .insertInto("feature_dependencies")
      .values({ child, parent, enabled, variants: JSON.stringify(variants) })
      .onConflict((oc) =>
        oc.columns(["parent", "child"]).doUpdateSet({ enabled, variants: JSON.stringify(variants) }),
      )
      .execute(),

  removeDependency: async (db: Db, child: string, parent?: string) => {
    let query = db.deleteFrom("feature_dependencies").where("child", "=", child);
    if (parent) query = query.where("parent", "=", parent);
    return Number((await query.executeTakeFirst()).numDeletedRows);
  },

  projectHasDependencies: async (db: Db, project: string) =>
    (await db
      .selectFrom("feature_dependencies as d")
      .innerJoin("features as f", "f.name", "d.child")
      .select("d.child")
      .where("f.project", "=", project)
      .limit(1)
      .executeTakeFirst()) !== undefined,

  lifecycle: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_lifecycles")
          .selectAll()
          .where("feature", "in", names)
          .orderBy("created_at")
          .execute(),

  enterStage: (
    db: Db,
    name: string,
    stage: string,
    status: string | null = null,
    statusValue: string | null = null,
  ) =>
    db
      .insertInto("feature_lifecycles")
      .values({ feature: name, stage, status, status_value: statusValue })
      .onConflict((oc) => oc.columns(["feature", "stage"]).doUpdateSet({ status, status_value: statusValue }))
      .execute(),

  leaveStage: (db: Db, name: string, stage: string) =>
    db.deleteFrom("feature_lifecycles").where("feature", "=", name).where("stage", "=", stage).execute(),
};
