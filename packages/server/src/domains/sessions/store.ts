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
};
