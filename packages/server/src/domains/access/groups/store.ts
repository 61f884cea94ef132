import { type Insertable, type Selectable, sql } from "kysely";
import type { Db } from "../../../db/connection.js";
import type { GroupTable, GroupUserTable } from "../../../db/schema.js";

export type GroupRow = Selectable<GroupTable>;
export type GroupUserRow = Selectable<GroupUserTable>;

/** Groups (`groups`) and who belongs to them (`group_users`). */
export const groupStore = {
  list: (db: Db): Promise<GroupRow[]> => db.selectFrom("groups").selectAll().orderBy("name").execute(),

  byId: (db: Db, id: number): Promise<GroupRow | undefined> =>
    db.selectFrom("groups").selectAll().where("id", "=", id).executeTakeFirst(),

  byIds(db: Db, ids: readonly number[]): Promise<GroupRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("groups")
      .selectAll()
      .where("id", "in", [...ids])
      .orderBy("name")
      .execute();
  },

  /** Names are unique whatever their case, as the index says. */
  async nameTaken(db: Db, name: string, exceptId?: number): Promise<boolean> {
    let query = db.selectFrom("groups").select("id").where(sql`lower(name)`, "=", name.toLowerCase());
    if (exceptId !== undefined) query = query.where("id", "<>", exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  },

  /** Undefined when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, group: Insertable<GroupTable>): Promise<number | undefined> =>
    (
      await db
        .insertInto("groups")
        .values(group)
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .executeTakeFirst()
    )?.id,

  async update(
    db: Db,
    id: number,
    group: Pick<GroupRow, "name" | "description" | "root_role_id">,
  ): Promise<void> {
    await db.updateTable("groups").set(group).where("id", "=", id).execute();
  },

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("groups").where("id", "=", id).execute();
  },

  users(db: Db, groupIds: readonly number[]): Promise<GroupUserRow[]> {
    if (groupIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("group_users")
      .selectAll()
      .where("group_id", "in", [...groupIds])
      .orderBy("created_at")
      .orderBy("user_id")
      .execute();
  },

  /** Makes the group's users exactly these; those who stay keep the date they joined. */
  async setUsers(db: Db, groupId: number, userIds: readonly number[]): Promise<void> {
    let leaving = db.deleteFrom("group_users").where("group_id", "=", groupId);
    if (userIds.length > 0) leaving = leaving.where("user_id", "not in", [...userIds]);
    await leaving.execute();
    if (userIds.length === 0) return;
    await db
      .insertInto("group_users")
      .values(userIds.map((userId) => ({ group_id: groupId, user_id: userId })))
      .onConflict((oc) => oc.columns(["group_id", "user_id"]).doNothing())
      .execute();
  },

  groupsOf: async (db: Db, userId: number): Promise<number[]> =>
    (await db.selectFrom("group_users").select("group_id").where("user_id", "=", userId).execute()).map(
      (row) => row.group_id,
    ),

  /** The groups among `ids` that exist. */
  existing: async (db: Db, ids: readonly number[]): Promise<number[]> =>
    ids.length === 0
      ? []
      : (
          await db
            .selectFrom("groups")
            .select("id")
            .where("id", "in", [...ids])
            .execute()
        ).map((row) => row.id),

  async withRootRole(db: Db, roleId: number): Promise<number> {
    const row = await db
      .selectFrom("groups")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("root_role_id", "=", roleId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },
};
