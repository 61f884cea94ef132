import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { StrategyDefinitionTable } from "../../db/schema.js";

export type StrategyDefinitionRow = Selectable<StrategyDefinitionTable>;

export const strategyDefinitionStore = {
  list: (db: Db): Promise<StrategyDefinitionRow[]> =>
    db.selectFrom("strategy_definitions").selectAll().orderBy("sort_order").orderBy("name").execute(),

  byName: (db: Db, name: string): Promise<StrategyDefinitionRow | undefined> =>
    db.selectFrom("strategy_definitions").selectAll().where("name", "=", name).executeTakeFirst(),

  /** False when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, definition: Insertable<StrategyDefinitionTable>): Promise<boolean> =>
    (await db
      .insertInto("strategy_definitions")
      .values(definition)
      .onConflict((oc) => oc.column("name").doNothing())
      .returning("name")
      .executeTakeFirst()) !== undefined,

  async update(db: Db, name: string, changes: Updateable<StrategyDefinitionTable>): Promise<void> {
    await db.updateTable("strategy_definitions").set(changes).where("name", "=", name).execute();
  },

  async remove(db: Db, name: string): Promise<void> {
    await db.deleteFrom("strategy_definitions").where("name", "=", name).execute();
  },

  /** The flags with a strategy of this kind, in any environment. */
  flagsUsing: async (db: Db, name: string): Promise<string[]> =>
    (
      await db
        .selectFrom("feature_strategies")
        .select("feature_name")
        .distinct()
        .where("strategy_name", "=", name)
        .orderBy("feature_name")
        .execute()
    ).map((row) => row.feature_name),
};
