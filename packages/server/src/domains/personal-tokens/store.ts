import type { Db } from "../../db/connection.js";

/** Personal access tokens (`personal_access_tokens`), found by the SHA-256 of their secret. */
export const personalTokenStore = {
  active: (db: Db, secretHash: string, now: Date) =>
    db
      .selectFrom("personal_access_tokens")
      .select(["id", "user_id"])
      .where("secret_hash", "=", secretHash)
      .where("expires_at", ">", now)
      .executeTakeFirst(),

  markSeen: async (db: Db, ids: readonly number[], at: Date): Promise<void> => {
    if (ids.length === 0) return;
    await db
      .updateTable("personal_access_tokens")
      .set({ seen_at: at })
      .where("id", "in", [...ids])
      .execute();
  },
};
