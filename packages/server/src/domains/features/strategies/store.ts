import type { Selectable } from "kysely";
import type { Db } from "../../../db/connection.js";
import type { ConstraintRow, FeatureStrategyTable, VariantRow } from "../../../db/schema.js";

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

const columns = (values: Partial<StrategyValues>) => ({
  ...(values.name !== undefined ? { strategy_name: values.name } : {}),
  ...(values.title !== undefined ? { title: values.title } : {}),
  ...(values.disabled !== undefined ? { disabled: values.disabled } : {}),
  ...(values.sortOrder !== undefined ? { sort_order: values.sortOrder } : {}),
  ...(values.parameters !== undefined ? { parameters: JSON.stringify(values.parameters) } : {}),
  ...(values.constraints !== undefined ? { constraints: JSON.stringify(values.constraints) } : {}),
  ...(values.variants !== undefined ? { variants: JSON.stringify(values.variants) } : {}),
  ...(values.segments !== undefined ? { segments: values.segments } : {}),
});

/** The strategies of flags per environment (`feature_strategies`). */
export const strategyStore = {
  ofFlags: (db: Db, names: string[], environment?: string) => {
    if (names.length === 0) return Promise.resolve([]);
    let query = db.selectFrom("feature_strategies").selectAll().where("feature_name", "in", names);
    if (environment) query = query.where("environment", "=", environment);
    return query.orderBy("sort_order").orderBy("created_at").orderBy("id").execute();
  },

  byId: (db: Db, id: string) =>
    db.selectFrom("feature_strategies").selectAll().where("id", "=", id).executeTakeFirst(),

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

  insert: (
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

  update: (db: Db, id: string, values: Partial<StrategyValues>) =>
    db
      .updateTable("feature_strategies")
      .set(columns(values))
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow(),

  remove: (db: Db, id: string) => db.deleteFrom("feature_strategies").where("id", "=", id).execute(),

  moveToProject: (db: Db, name: string, project: string) =>
    db
      .updateTable("feature_strategies")
      .set({ project_name: project })
      .where("feature_name", "=", name)
      .execute(),

  /** Every strategy of a project's flags in one environment goes. */
  removeInProject: (db: Db, project: string, environment: string) =>
    db
      .deleteFrom("feature_strategies")
      .where("project_name", "=", project)
      .where("environment", "=", environment)
      .execute(),
};
