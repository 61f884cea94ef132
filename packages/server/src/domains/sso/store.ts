import type { Db } from "../../db/connection.js";

/** The settings of each way to sign in (`auth_settings`), one JSON document a name. */
export const authSettingsStore = {
  get: async (db: Db, name: string): Promise<Record<string, unknown> | undefined> =>
    (await db.selectFrom("auth_settings").select("content").where("name", "=", name).executeTakeFirst())
      ?.content,

  async put(db: Db, name: string, content: Record<string, unknown>): Promise<void> {
    const json = JSON.stringify(content);
    await db
      .insertInto("auth_settings")
      .values({ name, content: json })
      .onConflict((oc) => oc.column("name").doUpdateSet({ content: json, updated_at: new Date() }))
      .execute();
  },
};
