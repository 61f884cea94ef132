import type { Db } from "../../db/connection.js";

/** Login sessions (`sessions`), found by the SHA-256 of their id. */
export const sessionStore = {
  active: (db: Db, idHash: string, now: Date) =>
    db
      .selectFrom("sessions")
      .select(["user_id", "expires_at"])
      .where("id_hash", "=", idHash)
      .where("expires_at", ">", now)
      .executeTakeFirst(),

  async insert(db: Db, idHash: string, userId: number, expiresAt: Date): Promise<void> {
    await db
      .insertInto("sessions")
      .values({ id_hash: idHash, user_id: userId, expires_at: expiresAt })
      .execute();
  },

  async remove(db: Db, idHash: string): Promise<void> {
    await db.deleteFrom("sessions").where("id_hash", "=", idHash).execute();
  },

  /** Every session of a user but the one kept, if any. */
  async removeForUser(db: Db, userId: number, keepHash?: string): Promise<void> {
    let query = db.deleteFrom("sessions").where("user_id", "=", userId);
    if (keepHash !== undefined) query = query.where("id_hash", "<>", keepHash);
    await query.execute();
  },

  async removeExpired(db: Db, now: Date): Promise<void> {
    await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
  },
};
