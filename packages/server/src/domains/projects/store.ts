import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ProjectTable } from "../../db/schema.js";

export type ProjectRow = Selectable<ProjectTable>;

export type ProjectSummaryRow = ProjectRow & {
  feature_count: number;
  stale_count: number;
  potentially_stale_count: number;
  last_updated_at: Date | null;
  last_reported_flag_usage: Date | null;
};

// One row per project with the figures its listing shows, counted in the same statement.
const summaries = (db: Db) =>
  db
    .selectFrom("projects as p")
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom("features as f")
          .whereRef("f.project", "=", "p.id")
          .where("f.archived_at", "is", null)
          .select((eb) => [
            eb.fn.countAll<number>().as("feature_count"),
            eb.fn.countAll<number>().filterWhere("f.stale", "=", true).as("stale_count"),
            eb.fn
              .countAll<number>()
              .filterWhere((eb) => eb.and([eb("f.stale", "=", false), eb("f.potentially_stale", "=", true)]))
              .as("potentially_stale_count"),
          ])
          .as("counts"),
      (join) => join.onTrue(),
    )
    .selectAll("p")
    .select((eb) => [
      eb.ref("counts.feature_count").$notNull().as("feature_count"),
      eb.ref("counts.stale_count").$notNull().as("stale_count"),
      eb.ref("counts.potentially_stale_count").$notNull().as("potentially_stale_count"),
      eb
        .selectFrom("events as e")
        .whereRef("e.project", "=", "p.id")
        .select((eb) => eb.fn.max("e.created_at").as("at"))
        .as("last_updated_at"),
      eb
        .selectFrom("feature_environments as fe")
        .innerJoin("features as f", "f.name", "fe.feature_name")
        .whereRef("f.project", "=", "p.id")
        .select((eb) => eb.fn.max("fe.last_seen_at").as("at"))
        .as("last_reported_flag_usage"),
    ]);

export const projectStore = {
  summaries: (db: Db, archived: boolean): Promise<ProjectSummaryRow[]> =>
    summaries(db)
      .where("p.archived_at", archived ? "is not" : "is", null)
      .orderBy("p.name")
      .orderBy("p.id")
      .execute(),

  summary: (db: Db, id: string): Promise<ProjectSummaryRow | undefined> =>
    summaries(db).where("p.id", "=", id).executeTakeFirst(),

  byId: (db: Db, id: string): Promise<ProjectRow | undefined> =>
    db.selectFrom("projects").selectAll().where("id", "=", id).executeTakeFirst(),

  /** False when the id is taken: the insert and the uniqueness check are one statement. */
  insert: async (db: Db, project: Insertable<ProjectTable>): Promise<boolean> =>
    (await db
      .insertInto("projects")
      .values(project)
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .executeTakeFirst()) !== undefined,

  update: (db: Db, id: string, changes: Updateable<ProjectTable>) =>
    db.updateTable("projects").set(changes).where("id", "=", id).execute(),

  remove: (db: Db, id: string) => db.deleteFrom("projects").where("id", "=", id).execute(),

  environments: (db: Db, id: string) =>
    db
      .selectFrom("project_environments as pe")
      .innerJoin("environments as e", "e.name", "pe.environment_name")
      .select(["pe.environment_name", "pe.default_strategy"])
      .where("pe.project_id", "=", id)
      .orderBy("e.sort_order")
      .orderBy("e.name")
      .execute(),

  /** Links an environment; false when it was linked already. */
  linkEnvironment: async (db: Db, projectId: string, environment: string): Promise<boolean> =>
    (await db
      .insertInto("project_environments")
      .values({ project_id: projectId, environment_name: environment, default_strategy: null })
      .onConflict((oc) => oc.columns(["project_id", "environment_name"]).doNothing())
      .returning("environment_name")
      .executeTakeFirst()) !== undefined,

  /** Gives every flag of the project a row in the environment, disabled, as a new flag gets. */
  connectFlags: (db: Db, projectId: string, environment: string) =>
    db
      .insertInto("feature_environments")
      .columns(["feature_name", "environment"])
      .expression((eb) =>
        eb
          .selectFrom("features")
          .select((eb) => ["name", eb.val(environment).as("environment")])
          .where("project", "=", projectId),
      )
      .onConflict((oc) => oc.columns(["feature_name", "environment"]).doNothing())
      .execute(),

  /** Unlinks an environment with the project's flag configuration in it. */
  async unlinkEnvironment(db: Db, projectId: string, environment: string): Promise<void> {
    const flags = db.selectFrom("features").select("name").where("project", "=", projectId);
    await db
      .deleteFrom("feature_strategies")
      .where("environment", "=", environment)
      .where("feature_name", "in", flags)
      .execute();
    await db
      .deleteFrom("feature_environments")
      .where("environment", "=", environment)
      .where("feature_name", "in", flags)
      .execute();
    await db
      .deleteFrom("project_environments")
      .where("project_id", "=", projectId)
      .where("environment_name", "=", environment)
      .execute();
  },

  flags: (db: Db, projectId: string) =>
    db
      .selectFrom("features")
      .select(["name", "archived_at"])
      .where("project", "=", projectId)
      .orderBy("name")
      .execute(),

  removeFlags: (db: Db, names: string[]) => db.deleteFrom("features").where("name", "in", names).execute(),
};
