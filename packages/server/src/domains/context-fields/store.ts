import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from "kysely";
import { setsAnything } from "../../db/changes.js";
import type { Db } from "../../db/connection.js";
import type { ContextFieldTable } from "../../db/schema.js";
import { strategyUsage } from "../../db/strategy-usage.js";

export type ContextFieldRow = Selectable<ContextFieldTable> & {
  used_in_features: number;
  used_in_projects: number;
};

// A strategy uses a field when one of its constraints names it.
const usedBy = (field: RawBuilder<unknown> | string) =>
  sql<boolean>`fs.constraints @> jsonb_build_array(jsonb_build_object('contextName', ${field}::text))`;

/** The fields alone: `withUsage` reads every strategy for each. */
const fields = (db: Db) => db.selectFrom("context_fields as cf").selectAll("cf");

const withUsage = (db: Db) => fields(db).select(strategyUsage(usedBy(sql.ref("cf.name"))));

export const contextFieldStore = {
  list: (db: Db): Promise<ContextFieldRow[]> =>
    withUsage(db).orderBy("cf.sort_order").orderBy("cf.name").execute(),

  definitions: (db: Db): Promise<Selectable<ContextFieldTable>[]> =>
    fields(db).orderBy("cf.sort_order").orderBy("cf.name").execute(),

  byName: (db: Db, name: string): Promise<ContextFieldRow | undefined> =>
    withUsage(db).where("cf.name", "=", name).executeTakeFirst(),

  /** False when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, field: Insertable<ContextFieldTable>): Promise<boolean> =>
    (await db
      .insertInto("context_fields")
      .values(field)
      .onConflict((oc) => oc.column("name").doNothing())
      .returning("name")
      .executeTakeFirst()) !== undefined,

  async update(db: Db, name: string, changes: Updateable<ContextFieldTable>): Promise<void> {
    if (!setsAnything(changes)) return;
    await db.updateTable("context_fields").set(changes).where("name", "=", name).execute();
  },

  async remove(db: Db, name: string): Promise<void> {
    await db.deleteFrom("context_fields").where("name", "=", name).execute();
  },

  /** The flags with a strategy constraint on the field. */
  flagsUsing: async (db: Db, name: string): Promise<string[]> =>
    (
      await db
        .selectFrom("feature_strategies as fs")
        .select("fs.feature_name")
        .distinct()
        .where(usedBy(name))
        .orderBy("fs.feature_name")
        .execute()
    ).map((row) => row.feature_name),
};
