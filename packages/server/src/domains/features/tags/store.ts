import { sql } from "kysely";
import { anyOf } from "../../../db/any-of.js";
import type { Db } from "../../../db/connection.js";
import type { FeatureTag } from "./schemas.js";

/** The tags of flags (`feature_tags`). */
export const tagStore = {
  ofFlags: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_tags")
          .select(["feature_name", "tag_type", "tag_value"])
          .where("feature_name", "=", anyOf(names))
          .orderBy("created_at")
          .orderBy("tag_type")
          .orderBy("tag_value")
          .execute(),

  /** The tags among `tags` that any flag, archived or not, holds. */
  held: async (db: Db, tags: readonly FeatureTag[]): Promise<FeatureTag[]> => {
    if (tags.length === 0) return [];
    const { rows } = await sql<FeatureTag>`
      select distinct t.tag_type as type, t.tag_value as value
      from feature_tags as t
      join unnest(${tags.map((tag) => tag.type)}::text[], ${tags.map((tag) => tag.value)}::text[])
        as wanted (type, value) on t.tag_type = wanted.type and t.tag_value = wanted.value
    `.execute(db);
    return rows;
  },

  /** Adds tags to flags; returns those added: the others the flags had already. */
  add: async (db: Db, tags: readonly FlagTag[]): Promise<FlagTag[]> => {
    if (tags.length === 0) return [];
    const { rows } = await sql<FlagTag>`
      insert into feature_tags (feature_name, tag_type, tag_value)
      select * from unnest(${columnsOf(tags)})
      on conflict do nothing
      returning feature_name as name, tag_type as type, tag_value as value
    `.execute(db);
    return rows;
  },

  /** Removes tags from flags; returns those removed: the others the flags did not have. */
  remove: async (db: Db, tags: readonly FlagTag[]): Promise<FlagTag[]> => {
    if (tags.length === 0) return [];
    const { rows } = await sql<FlagTag>`
      delete from feature_tags as t
      using unnest(${columnsOf(tags)}) as gone (name, type, value)
      where t.feature_name = gone.name and t.tag_type = gone.type and t.tag_value = gone.value
      returning t.feature_name as name, t.tag_type as type, t.tag_value as value
    `.execute(db);
    return rows;
  },
};

/** A tag of a flag, by the flag's name. */
export interface FlagTag extends FeatureTag {
  name: string;
}

const columnsOf = (tags: readonly FlagTag[]) =>
  sql.join([
    sql`${tags.map((tag) => tag.name)}::text[]`,
    sql`${tags.map((tag) => tag.type)}::text[]`,
    sql`${tags.map((tag) => tag.value)}::text[]`,
  ]);
