import { sql } from "kysely";
import { anyOf } from "../../../db/any-of.js";
import type { Db } from "../../../db/connection.js";

/** Which flags depend on which (`feature_dependencies`): a child on its parents. */
export const dependencyStore = {
  parentsOf: (db: Db, children: string[]) =>
    children.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies")
          .selectAll()
          .where("child", "=", anyOf(children))
          .orderBy("parent")
          .execute(),

  childrenOf: (db: Db, parents: string[]) =>
    parents.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies")
          .select(["parent", "child"])
          .where("parent", "=", anyOf(parents))
          .orderBy("child")
          .execute(),

  /** Links children to parents, or sets a link's requirements anew: the last given for a link wins. */
  add: async (
    db: Db,
    links: readonly { child: string; parent: string; enabled: boolean; variants: string[] }[],
  ) => {
    const last = new Map(links.map((link) => [JSON.stringify([link.parent, link.child]), link]));
    if (last.size === 0) return;
    await sql`
      insert into feature_dependencies (child, parent, enabled, variants)
      select child, parent, enabled, variants
      from jsonb_to_recordset(${JSON.stringify([...last.values()])}::jsonb) as r (
        child text, parent text, enabled boolean, variants jsonb
      )
      on conflict (parent, child) do update set enabled = excluded.enabled, variants = excluded.variants
    `.execute(db);
  },

  /** Removes one parent of a child, or all of them; returns how many went. */
  remove: async (db: Db, child: string, parent?: string) => {
    let query = db.deleteFrom("feature_dependencies").where("child", "=", child);
    if (parent) query = query.where("parent", "=", parent);
    return Number((await query.executeTakeFirst()).numDeletedRows);
  },

  anyChildAmong: async (db: Db, names: string[]) =>
    names.length > 0 &&
    (await db
      .selectFrom("feature_dependencies")
      .select("child")
      .where("child", "=", anyOf(names))
      .limit(1)
      .executeTakeFirst()) !== undefined,
};
