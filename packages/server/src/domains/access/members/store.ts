import type { Db } from "../../../db/connection.js";

/** Who holds a role in a project: a user, or a group (and through it each of its users). */
export type Holder = { kind: "user"; id: number } | { kind: "group"; id: number };

export interface Membership {
  project: string;
  holder: number;
  role_id: number;
  created_at: Date;
}

// The two tables differ only in who holds the role; every statement is written once for both.
const TABLES = {
  user: { table: "project_user_roles", column: "user_id" },
  group: { table: "project_group_roles", column: "group_id" },
} as const;

/** Project roles given to users (`project_user_roles`) and to groups (`project_group_roles`). */
export const memberStore = {
  async ofProjects(db: Db, kind: Holder["kind"], projects: readonly string[]): Promise<Membership[]> {
    if (projects.length === 0) return [];
    const { table, column } = TABLES[kind];
    return db
      .selectFrom(table)
      .select(["project", `${column} as holder`, "role_id", "created_at"])
      .where("project", "in", [...projects])
      .orderBy("created_at")
      .execute();
  },

  /** The roles one user or group holds in a project. */
  async rolesOf(db: Db, project: string, holder: Holder): Promise<number[]> {
    const { table, column } = TABLES[holder.kind];
    const rows = await db
      .selectFrom(table)
      .select("role_id")
      .where("project", "=", project)
      .where(column, "=", holder.id)
      .orderBy("role_id")
      .execute();
    return rows.map((row) => row.role_id);
  },

  /** The roles any of the groups holds in a project. */
  async rolesOfGroups(db: Db, project: string, groupIds: readonly number[]): Promise<number[]> {
    if (groupIds.length === 0) return [];
    const rows = await db
      .selectFrom("project_group_roles")
      .select("role_id")
      .distinct()
      .where("project", "=", project)
      .where("group_id", "in", [...groupIds])
      .execute();
    return rows.map((row) => row.role_id);
  },

  /** Gives each holder each role; what they already hold is left as it was. */
  async add(
    db: Db,
    project: string,
    kind: Holder["kind"],
    ids: readonly number[],
    roles: readonly number[],
  ): Promise<void> {
    if (ids.length === 0 || roles.length === 0) return;
    const { table, column } = TABLES[kind];
    // A row keyed by one of two columns is beyond what Kysely can type from a union of tables.
    const rows = ids.flatMap((id) => roles.map((role_id) => ({ project, [column]: id, role_id }) as never));
    await db
      .insertInto(table)
      .values(rows)
      .onConflict((oc) => oc.columns(["project", column, "role_id"]).doNothing())
      .execute();
  },

  /** Takes roles away from a holder: the ones named, or without any named every one. */
  async remove(db: Db, project: string, holder: Holder, roles?: readonly number[]): Promise<void> {
    const { table, column } = TABLES[holder.kind];
    let query = db.deleteFrom(table).where("project", "=", project).where(column, "=", holder.id);
    if (roles !== undefined) {
      if (roles.length === 0) return;
      query = query.where("role_id", "in", [...roles]);
    }
    await query.execute();
  },

  /** How many users and groups hold the role: in one project, or in any. */
  async holders(db: Db, roleId: number, project?: string): Promise<number> {
    const counts = await Promise.all(
      Object.values(TABLES).map(({ table }) => {
        let query = db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .where("role_id", "=", roleId);
        if (project !== undefined) query = query.where("project", "=", project);
        return query.executeTakeFirstOrThrow();
      }),
    );
    return counts.reduce((sum, row) => sum + Number(row.count), 0);
  },

  async projectsOfGroups(db: Db, groupIds: readonly number[]) {
    if (groupIds.length === 0) return [];
    return db
      .selectFrom("project_group_roles")
      .select(["group_id", "project"])
      .distinct()
      .where("group_id", "in", [...groupIds])
      .orderBy("project")
      .execute();
  },
};
