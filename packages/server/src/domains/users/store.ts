import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { ROLE_IDS } from "../../access/roles.js";
import { setsAnything } from "../../db/changes.js";
import type { Db } from "../../db/connection.js";
import type { UserTable } from "../../db/schema.js";

export type UserRow = Selectable<UserTable>;
export type MemberRow = Pick<UserRow, "id" | "name" | "email" | "username" | "image_url">;

const lower = (text: string) => text.toLowerCase();

/** People and service accounts (`users`), and the links that reset a password (`password_reset_tokens`). */
export const userStore = {
  byId: (db: Db, id: number): Promise<UserRow | undefined> =>
    db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst(),

  /** The users among `ids`, with only what listings of members show. */
  async byIds(db: Db, ids: readonly number[]): Promise<MemberRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom("users")
      .select(["id", "name", "email", "username", "image_url"])
      .where("id", "in", [...new Set(ids)])
      .orderBy("id")
      .execute();
  },

  list: (db: Db, service: boolean): Promise<UserRow[]> =>
    db.selectFrom("users").selectAll().where("is_service", "=", service).orderBy("id").execute(),

  /** Whom a login names: their username, else their email, whatever the case. */
  byLogin: (db: Db, login: string): Promise<UserRow | undefined> =>
    db
      .selectFrom("users")
      .selectAll()
      .where((eb) =>
        eb.or([eb(sql`lower(username)`, "=", lower(login)), eb(sql`lower(email)`, "=", lower(login))]),
      )
      .orderBy(sql`lower(username) = ${lower(login)}`, "desc")
      .executeTakeFirst(),

  byEmail: (db: Db, email: string): Promise<UserRow | undefined> =>
    db.selectFrom("users").selectAll().where(sql`lower(email)`, "=", lower(email)).executeTakeFirst(),

  /**
   * Whether a username or email is someone else's, as either: a login matches both columns,
   * so one person's username may not be another's email.
   */
  async taken(db: Db, names: readonly string[], exceptId?: number): Promise<boolean> {
    if (names.length === 0) return false;
    const wanted = names.map(lower);
    let query = db
      .selectFrom("users")
      .select("id")
      .where((eb) => eb.or([eb(sql`lower(username)`, "in", wanted), eb(sql`lower(email)`, "in", wanted)]));
    if (exceptId !== undefined) query = query.where("id", "<>", exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  },

  /** Undefined when the username or email is taken: the unique indexes decide, in one statement. */
  insert: async (db: Db, user: Insertable<UserTable>): Promise<number | undefined> =>
    (
      await db
        .insertInto("users")
        .values(user)
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .executeTakeFirst()
    )?.id,

  async update(db: Db, id: number, changes: Updateable<UserTable>): Promise<void> {
    if (!setsAnything(changes)) return;
    await db
      .updateTable("users")
      .set({ ...changes, updated_at: new Date() })
      .where("id", "=", id)
      .execute();
  },

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("users").where("id", "=", id).execute();
  },

  async withRootRole(db: Db, roleId: number): Promise<number> {
    const row = await db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("root_role_id", "=", roleId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  countPeople: async (db: Db): Promise<number> =>
    Number(
      (
        await db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll().as("count"))
          .where("is_service", "=", false)
          .executeTakeFirstOrThrow()
      ).count,
    ),

  /**
   * The ids of the active people holding the Admin root role, locked until the transaction
   * ends: two admins demoting each other at once cannot both see the other remain.
   */
  lockAdmins: async (db: Db): Promise<number[]> =>
    (
      await db
        .selectFrom("users")
        .select("id")
        .where("root_role_id", "=", ROLE_IDS.Admin)
        .where("is_active", "=", true)
        .where("is_service", "=", false)
        .forUpdate()
        .execute()
    ).map((row) => row.id),

  markSeen: async (db: Db, ids: readonly number[], at: Date): Promise<void> => {
    if (ids.length === 0) return;
    await db
      .updateTable("users")
      .set({ seen_at: at })
      .where("id", "in", [...ids])
      .execute();
  },

  async insertResetToken(db: Db, userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
    await db
      .insertInto("password_reset_tokens")
      .values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt })
      .execute();
  },

  /** The user a reset link is for, while it is unused and unexpired. */
  resetTokenUser: async (db: Db, tokenHash: string, now: Date): Promise<number | undefined> =>
    (
      await db
        .selectFrom("password_reset_tokens")
        .select("user_id")
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst()
    )?.user_id,

  /** Uses up a reset link, if it is unused and unexpired; whose it was. One statement, so it works once. */
  claimResetToken: async (db: Db, tokenHash: string, now: Date): Promise<number | undefined> =>
    (
      await db
        .updateTable("password_reset_tokens")
        .set({ used_at: now })
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning("user_id")
        .executeTakeFirst()
    )?.user_id,

  /** Uses up every reset link of a user: a new password ends them all. */
  async useResetTokens(db: Db, userId: number, now: Date): Promise<void> {
    await db
      .updateTable("password_reset_tokens")
      .set({ used_at: now })
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .execute();
  },
};
