import type { Db } from "../../../db/connection.js";
import type { PersonView } from "./schemas.js";

/**
 * The two reads of `users` that access needs: who the members of groups and projects are,
 * and who holds a root role. The users domain owns the table; these read it in place so
 * that a listing of many members is one statement, not a lookup each.
 */
export const people = {
  async byIds(db: Db, ids: readonly number[]): Promise<PersonView[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom("users")
      .select(["id", "name", "email", "username", "image_url"])
      .where("id", "in", [...new Set(ids)])
      .orderBy("id")
      .execute();
    return rows.map(({ image_url, ...person }) => ({ ...person, imageUrl: image_url }));
  },

  /** The ids among `ids` that are not users. */
  async missing(db: Db, ids: readonly number[]): Promise<number[]> {
    const known = new Set((await people.byIds(db, ids)).map((person) => person.id));
    return ids.filter((id) => !known.has(id));
  },

  async withRootRole(db: Db, roleId: number): Promise<number> {
    const row = await db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("root_role_id", "=", roleId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },
};
