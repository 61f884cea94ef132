import { type Insertable, type Selectable, sql } from "kysely";
import type { Db } from "../../../db/connection.js";
import type { RoleTable } from "../../../db/schema.js";

export type RoleRow = Selectable<RoleTable>;

/** A permission a custom role holds: `environment` is '' unless it names one. */
export interface StoredPermission {
  permission: string;
  environment: string;
}

/** Roles (`roles`) and the permissions of custom roles (`role_permissions`). */
export const roleStore = {
  list: (db: Db): Promise<RoleRow[]> => db.selectFrom("roles").selectAll().orderBy("id").execute(),

  byId: (db: Db, id: number): Promise<RoleRow | undefined> =>
    db.selectFrom("roles").selectAll().where("id", "=", id).executeTakeFirst(),

  byIds(db: Db, ids: readonly number[]): Promise<RoleRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("roles")
      .selectAll()
      .where("id", "in", [...ids])
      .execute();
  },

  /** Names are unique whatever their case, as the index says. */
  async nameTaken(db: Db, name: string, exceptId?: number): Promise<boolean> {
    let query = db.selectFrom("roles").select("id").where(sql`lower(name)`, "=", name.toLowerCase());
    if (exceptId !== undefined) query = query.where("id", "<>", exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  },

  /** Undefined when the name is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, role: Insertable<RoleTable>): Promise<number | undefined> =>
    (
      await db
        .insertInto("roles")
        .values(role)
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .executeTakeFirst()
    )?.id,

  async update(db: Db, id: number, role: Pick<RoleRow, "name" | "description" | "type">): Promise<void> {
    await db.updateTable("roles").set(role).where("id", "=", id).execute();
  },

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("roles").where("id", "=", id).execute();
  },

  permissions: (db: Db, roleId: number): Promise<StoredPermission[]> =>
    db
      .selectFrom("role_permissions")
      .select(["permission", "environment"])
      .where("role_id", "=", roleId)
      .orderBy("permission")
      .orderBy("environment")
      .execute(),

  async setPermissions(db: Db, roleId: number, permissions: readonly StoredPermission[]): Promise<void> {
    await db.deleteFrom("role_permissions").where("role_id", "=", roleId).execute();
    if (permissions.length === 0) return;
    await db
      .insertInto("role_permissions")
      .values(permissions.map((permission) => ({ role_id: roleId, ...permission })))
      .execute();
  },
};
