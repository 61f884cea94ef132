import type { Selectable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { PersonalAccessTokenTable } from "../../db/schema.js";

/** A token as it may be shown: everything but the hash of its secret. */
export type PersonalTokenRow = Omit<Selectable<PersonalAccessTokenTable>, "secret_hash">;

const shown = ["id", "user_id", "description", "created_at", "expires_at", "seen_at"] as const;

/** Personal access tokens (`personal_access_tokens`), found by the SHA-256 of their secret. */
export const personalTokenStore = {
  active: (db: Db, secretHash: string, now: Date) =>
    db
      .selectFrom("personal_access_tokens")
      .select(["id", "user_id"])
      .where("secret_hash", "=", secretHash)
      .where("expires_at", ">", now)
      .executeTakeFirst(),

  /** A user's tokens, expired ones too, oldest first. */
  ofUser: (db: Db, userId: number): Promise<PersonalTokenRow[]> =>
    db
      .selectFrom("personal_access_tokens")
      .select(shown)
      .where("user_id", "=", userId)
      .orderBy("id")
      .execute(),

  /** The tokens of each of the users, expired ones too, oldest first. */
  async ofUsers(db: Db, userIds: readonly number[]): Promise<PersonalTokenRow[]> {
    if (userIds.length === 0) return [];
    return db
      .selectFrom("personal_access_tokens")
      .select(shown)
      .where("user_id", "in", [...userIds])
      .orderBy("id")
      .execute();
  },

  /** One of a user's tokens: another user's is none. */
  ofUserById: (db: Db, userId: number, id: number): Promise<PersonalTokenRow | undefined> =>
    db
      .selectFrom("personal_access_tokens")
      .select(shown)
      .where("user_id", "=", userId)
      .where("id", "=", id)
      .executeTakeFirst(),

  async count(db: Db, userId: number): Promise<number> {
    const row = await db
      .selectFrom("personal_access_tokens")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  async describedAs(db: Db, userId: number, description: string): Promise<boolean> {
    const row = await db
      .selectFrom("personal_access_tokens")
      .select("id")
      .where("user_id", "=", userId)
      .where("description", "=", description)
      .executeTakeFirst();
    return row !== undefined;
  },

  insert: (
    db: Db,
    token: { user_id: number; description: string; secret_hash: string; expires_at: Date },
  ): Promise<PersonalTokenRow> =>
    db.insertInto("personal_access_tokens").values(token).returning(shown).executeTakeFirstOrThrow(),

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("personal_access_tokens").where("id", "=", id).execute();
  },

  markSeen: async (db: Db, ids: readonly number[], at: Date): Promise<void> => {
    if (ids.length === 0) return;
    await db
      .updateTable("personal_access_tokens")
      .set({ seen_at: at })
      .where("id", "in", [...ids])
      .execute();
  },
};
