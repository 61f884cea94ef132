import type { Selectable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ApiTokenTable } from "../../db/schema.js";

export type TokenRow = Selectable<ApiTokenTable>;

export const tokenStore = {
  list: (db: Db) => db.selectFrom("api_tokens").selectAll().orderBy("id").execute(),

  byHash: (db: Db, hash: string) =>
    db.selectFrom("api_tokens").selectAll().where("secret_hash", "=", hash).executeTakeFirst(),

  byId: (db: Db, id: number) =>
    db.selectFrom("api_tokens").selectAll().where("id", "=", id).executeTakeFirst(),

  insert: async (db: Db, token: Omit<TokenRow, "id" | "created_at" | "seen_at">): Promise<number> =>
    (await db.insertInto("api_tokens").values(token).returning("id").executeTakeFirstOrThrow()).id,

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("api_tokens").where("id", "=", id).execute();
  },

  async updateExpiry(db: Db, id: number, expiresAt: Date | null): Promise<void> {
    await db.updateTable("api_tokens").set({ expires_at: expiresAt }).where("id", "=", id).execute();
  },

  markSeen: (db: Db, ids: number[], at: Date) =>
    db.updateTable("api_tokens").set({ seen_at: at }).where("id", "in", ids).execute(),
};
