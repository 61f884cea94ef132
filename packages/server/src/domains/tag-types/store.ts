import type { Insertable, Selectable, Updateable } from "kysely";
import { setsAnything } from "../../db/changes.js";
import type { Db } from "../../db/connection.js";
import type { TagTypeTable } from "../../db/schema.js";

export type TagTypeRow = Selectable<TagTypeTable>;

export const tagTypeStore = {
  list: (db: Db): Promise<TagTypeRow[]> => db.selectFrom("tag_types").selectAll().orderBy("name").execute(),

  byName: (db: Db, name: string): Promise<TagTypeRow | undefined> =>
    db.selectFrom("tag_types").selectAll().where("name", "=", name).executeTakeFirst(),

  /** False when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, tagType: Insertable<TagTypeTable>): Promise<boolean> =>
    (await db
      .insertInto("tag_types")
      .values(tagType)
      .onConflict((oc) => oc.column("name").doNothing())
      .returning("name")
      .executeTakeFirst()) !== undefined,

  async update(db: Db, name: string, changes: Updateable<TagTypeTable>): Promise<void> {
    if (!setsAnything(changes)) return;
    await db.updateTable("tag_types").set(changes).where("name", "=", name).execute();
  },

  async remove(db: Db, name: string): Promise<void> {
    await db.deleteFrom("tag_types").where("name", "=", name).execute();
  },
};
