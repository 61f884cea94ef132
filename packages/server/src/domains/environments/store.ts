import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { EnvironmentTable } from "../../db/schema.js";

export type EnvironmentRow = Selectable<EnvironmentTable> & { project_count: number };

const withProjectCount = (db: Db) =>
  db
    .selectFrom("environments as e")
    .selectAll("e")
    .select((eb) =>
      eb
        .selectFrom("project_environments as pe")
        .whereRef("pe.environment_name", "=", "e.name")
        .select(eb.fn.countAll<number>().as("count"))
        .$asScalar()
        .$notNull()
        .as("project_count"),
    );

export const environmentStore = {
  list: (db: Db): Promise<EnvironmentRow[]> =>
    withProjectCount(db).orderBy("e.sort_order").orderBy("e.name").execute(),

  byName: (db: Db, name: string): Promise<EnvironmentRow | undefined> =>
    withProjectCount(db).where("e.name", "=", name).executeTakeFirst(),

  /** False when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, environment: Insertable<EnvironmentTable>): Promise<boolean> =>
    (await db
      .insertInto("environments")
      .values(environment)
      .onConflict((oc) => oc.column("name").doNothing())
      .returning("name")
      .executeTakeFirst()) !== undefined,

  async update(db: Db, name: string, changes: Updateable<EnvironmentTable>): Promise<void> {
    await db.updateTable("environments").set(changes).where("name", "=", name).execute();
  },

  async remove(db: Db, name: string): Promise<void> {
    await db.deleteFrom("environments").where("name", "=", name).execute();
  },

  existing: async (db: Db, names: string[]): Promise<string[]> =>
    names.length === 0
      ? []
      : (await db.selectFrom("environments").select("name").where("name", "in", names).execute()).map(
          (row) => row.name,
        ),

  enabledNames: async (db: Db): Promise<string[]> =>
    (
      await db
        .selectFrom("environments")
        .select("name")
        .where("enabled", "=", true)
        .orderBy("sort_order")
        .orderBy("name")
        .execute()
    ).map((row) => row.name),
};
