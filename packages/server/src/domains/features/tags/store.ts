import type { Db } from "../../../db/connection.js";

/** The tags of flags (`feature_tags`). */
export const tagStore = {
  ofFlags: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_tags")
          .select(["feature_name", "tag_type", "tag_value"])
          .where("feature_name", "in", names)
          .orderBy("created_at")
          .orderBy("tag_type")
          .orderBy("tag_value")
          .execute(),

  /** Whether any flag, archived or not, holds the tag. */
  held: async (db: Db, type: string, value: string) =>
    (await db
      .selectFrom("feature_tags")
      .select("feature_name")
      .where("tag_type", "=", type)
      .where("tag_value", "=", value)
      .limit(1)
      .executeTakeFirst()) !== undefined,

  /** Adds a tag; false when the flag already had it. */
  add: async (db: Db, name: string, type: string, value: string) =>
    (
      await db
        .insertInto("feature_tags")
        .values({ feature_name: name, tag_type: type, tag_value: value })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst()
    ).numInsertedOrUpdatedRows === 1n,

  /** Removes a tag; false when the flag did not have it. */
  remove: async (db: Db, name: string, type: string, value: string) =>
    (
      await db
        .deleteFrom("feature_tags")
        .where("feature_name", "=", name)
        .where("tag_type", "=", type)
        .where("tag_value", "=", value)
        .executeTakeFirst()
    ).numDeletedRows === 1n,
};
