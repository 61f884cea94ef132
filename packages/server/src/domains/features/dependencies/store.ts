import type { Db } from "../../../db/connection.js";

/** Which flags depend on which (`feature_dependencies`): a child on its parents. */
export const dependencyStore = {
  parentsOf: (db: Db, children: string[]) =>
    children.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies")
          .selectAll()
          .where("child", "in", children)
          .orderBy("parent")
          .execute(),

  childrenOf: (db: Db, parents: string[]) =>
    parents.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_dependencies")
          .select(["parent", "child"])
          .where("parent", "in", parents)
          .orderBy("child")
          .execute(),

  add: (db: Db, child: string, parent: string, enabled: boolean, variants: string[]) =>
    db
      .insertInto("feature_dependencies")
      .values({ child, parent, enabled, variants: JSON.stringify(variants) })
      .onConflict((oc) =>
        oc.columns(["parent", "child"]).doUpdateSet({ enabled, variants: JSON.stringify(variants) }),
      )
      .execute(),

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
      .where("child", "in", names)
      .limit(1)
      .executeTakeFirst()) !== undefined,
};
