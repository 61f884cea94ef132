import { sql } from "kysely";
import type { Db } from "../../db/connection.js";

/** What a person can mark: a flag (`favorite_features.feature`) or a project (`favorite_projects.project`). */
export type FavoriteKind = "feature" | "project";

const table = (kind: FavoriteKind) => sql.table(`favorite_${kind}s`);

/** People's favourite flags and projects. */
export const favoriteStore = {
  /** Marks or unmarks; answers whether anything changed. */
  async set(db: Db, kind: FavoriteKind, userId: number, name: string, favorite: boolean): Promise<boolean> {
    const { rows } = favorite
      ? await sql`
          insert into ${table(kind)} (user_id, ${sql.ref(kind)}) values (${userId}, ${name})
          on conflict do nothing returning user_id
        `.execute(db)
      : await sql`
          delete from ${table(kind)} where user_id = ${userId} and ${sql.ref(kind)} = ${name}
          returning user_id
        `.execute(db);
    return rows.length > 0;
  },

  async of(db: Db, kind: FavoriteKind, userId: number): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      select ${sql.ref(kind)} as name from ${table(kind)} where user_id = ${userId}
    `.execute(db);
    return rows.map((row) => row.name);
  },
};
