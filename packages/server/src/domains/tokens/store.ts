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

  insert: (db: Db, token: Omit<TokenRow, "id" | "created_at" | "seen_at">) =>
    db.insertInto("api_tokens").values(token).returningAll().executeTakeFirstOrThrow(),

  remove: (db: Db, id: number) => db.deleteFrom("api_tokens").where("id", "=", id).execute(),

  updateExpiry: (db: Db, id: number, expiresAt: Date | null) =>
    db
      .updateTable("api_tokens")
      .set({ expires_at: expiresAt })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst(),

  markSeen: (db: Db, ids: number[], at: Date) =>
    db.updateTable("api_tokens").set({ seen_at: at }).where("id", "in", ids).execute(),

  environmentExists: async (db: Db, name: string) =>
    (await db.selectFrom("environments").select("name").where("name", "=", name).executeTakeFirst()) !==
    undefined,

  existingProjects: async (db: Db, ids: string[]) =>
    (await db.selectFrom("projects").select("id").where("id", "in", ids).execute()).map((row) => row.id),
};
