import { type Selectable, sql } from "kysely";
import { anyOf } from "../../../db/any-of.js";
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
    let query = db.selectFrom("feature_strategies").selectAll().where("feature_name", "=", anyOf(names));
    if (environment) query = query.where("environment", "=", environment);
    return query.orderBy("sort_order").orderBy("created_at").orderBy("id").execute();
  },

  byId: (db: Db, id: string) =>
    db.selectFrom("feature_strategies").selectAll().where("id", "=", id).executeTakeFirst(),

  byIds: (db: Db, ids: readonly string[]) =>
    ids.length === 0
      ? Promise.resolve([])
      : db.selectFrom("feature_strategies").selectAll().where("id", "=", anyOf(ids)).execute(),

  /** The highest position of each flag's strategies in the environment, for flags that have any. */
  lastSortOrders: async (db: Db, names: readonly string[], environment: string) => {
    if (names.length === 0) return new Map<string, number>();
    const rows = await db
      .selectFrom("feature_strategies")
      .select((eb) => ["feature_name", eb.fn.max("sort_order").as("max")])
      .where("feature_name", "=", anyOf(names))
      .where("environment", "=", environment)
      .groupBy("feature_name")
      .execute();
    return new Map(rows.map((row) => [row.feature_name, Number(row.max)]));
  },

  /**
   * Inserts strategies, one statement for all of them: the rows travel as one JSON parameter
   * (a statement holds at most 65 535 parameters). Returns their rows, in no particular order.
   */
  insert: async (
    db: Db,
    strategies: (StrategyValues & {
      id: string;
      featureName: string;
      project: string;
      environment: string;
    })[],
  ): Promise<StrategyRow[]> => {
    if (strategies.length === 0) return [];
    const rows = strategies.map((strategy) => ({
      id: strategy.id,
      feature_name: strategy.featureName,
      project_name: strategy.project,
      environment: strategy.environment,
      strategy_name: strategy.name,
      title: strategy.title,
      disabled: strategy.disabled,
      sort_order: strategy.sortOrder,
      parameters: strategy.parameters,
      constraints: strategy.constraints,
      variants: strategy.variants,
      segments: strategy.segments,
    }));
    const { rows: inserted } = await sql<StrategyRow>`
      insert into feature_strategies (id, feature_name, project_name, environment, strategy_name, title,
        disabled, sort_order, parameters, constraints, variants, segments)
      select id, feature_name, project_name, environment, strategy_name, title,
        disabled, sort_order, parameters, constraints, variants, segments
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r (
        id text, feature_name text, project_name text, environment text, strategy_name text, title text,
        disabled boolean, sort_order integer, parameters jsonb, constraints jsonb, variants jsonb,
        segments integer[]
      )
      returning *
    `.execute(db);
    return inserted;
  },

  update: (db: Db, id: string, values: Partial<StrategyValues>) =>
    db
      .updateTable("feature_strategies")
      .set(columns(values))
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow(),

  remove: (db: Db, ids: readonly string[]) =>
    db.deleteFrom("feature_strategies").where("id", "=", anyOf(ids)).execute(),

  /** Activates strategies; returns their rows as they are now. */
  enable: (db: Db, ids: readonly string[]) =>
    ids.length === 0
      ? Promise.resolve([])
      : db
          .updateTable("feature_strategies")
          .set({ disabled: false })
          .where("id", "=", anyOf(ids))
          .returningAll()
          .execute(),

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
