import type { Selectable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { UserTable } from "../../db/schema.js";

export type UserRow = Selectable<UserTable>;

/** People and service accounts (`users`). */
export const userStore = {
  byId: (db: Db, id: number): Promise<UserRow | undefined> =>
    db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst(),

  markSeen: async (db: Db, ids: readonly number[], at: Date): Promise<void> => {
    if (ids.length === 0) return;
    await db
      .updateTable("users")
      .set({ seen_at: at })
      .where("id", "in", [...ids])
      .execute();
  },
};
