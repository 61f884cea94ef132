import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ProjectTable } from "../../db/schema.js";
import type { StrategyInput } from "../../shared/strategy.js";

export type ProjectRow = Selectable<ProjectTable>;

export type ProjectSummaryRow = ProjectRow & { last_updated_at: Date | null };

/** A default strategy is stored as it was accepted: a strategy body, checked as one. */
const asStrategy = (stored: Record<string, unknown> | null | undefined) =>
  (stored ?? undefined) as StrategyInput | undefined;

// A project with when it last changed, read from the event log in the same statement.
const summaries = (db: Db) =>
  db
    .selectFrom("projects as p")
    .selectAll("p")
    .select((eb) =>
      eb
        .selectFrom("events as e")
        .whereRef("e.project", "=", "p.id")
        .select((eb) => eb.fn.max("e.created_at").as("at"))
        .as("last_updated_at"),
    );

/** Projects (`projects`) and the environments each uses (`project_environments`). */
export const projectStore = {
  summaries: (db: Db, archived: boolean): Promise<ProjectSummaryRow[]> =>
    summaries(db)
      .where("p.archived_at", archived ? "is not" : "is", null)
      .orderBy("p.name")
      .orderBy("p.id")
      .execute(),

  summary: (db: Db, id: string): Promise<ProjectSummaryRow | undefined> =>
    summaries(db).where("p.id", "=", id).executeTakeFirst(),

  existing: async (db: Db, ids: readonly string[]): Promise<string[]> =>
    ids.length === 0
      ? []
      : (
          await db
            .selectFrom("projects")
            .select("id")
            .where("id", "in", [...ids])
            .execute()
        ).map((row) => row.id),

  /** The projects that are not open, with their mode: what decides who sees and changes them. */
  restrictedModes: (db: Db) =>
    db.selectFrom("projects").select(["id", "mode"]).where("mode", "<>", "open").execute(),

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

  update: async (db: Db, id: string, changes: Updateable<ProjectTable>): Promise<void> => {
    await db.updateTable("projects").set(changes).where("id", "=", id).execute();
  },

  remove: (db: Db, id: string) => db.deleteFrom("projects").where("id", "=", id).execute(),

  // Ordered as the environments are: their order is what every listing of them follows.
  environments: async (db: Db, id: string) =>
    (
      await db
        .selectFrom("project_environments as pe")
        .innerJoin("environments as e", "e.name", "pe.environment_name")
        .select(["pe.environment_name", "pe.default_strategy"])
        .where("pe.project_id", "=", id)
        .orderBy("e.sort_order")
        .orderBy("e.name")
        .execute()
    ).map((row) => ({
      environment_name: row.environment_name,
      default_strategy: asStrategy(row.default_strategy),
    })),

  /** The environment's default strategy: undefined when it has none, or the project does not use it. */
  defaultStrategy: async (db: Db, projectId: string, environment: string) =>
    asStrategy(
      (
        await db
          .selectFrom("project_environments")
          .select("default_strategy")
          .where("project_id", "=", projectId)
          .where("environment_name", "=", environment)
          .executeTakeFirst()
      )?.default_strategy,
    ),

  setDefaultStrategy: async (db: Db, projectId: string, environment: string, strategy: StrategyInput) => {
    await db
      .updateTable("project_environments")
      .set({ default_strategy: JSON.stringify(strategy) })
      .where("project_id", "=", projectId)
      .where("environment_name", "=", environment)
      .execute();
  },

  /** Links an environment; false when it was linked already. */
  linkEnvironment: async (db: Db, projectId: string, environment: string): Promise<boolean> =>
    (await db
      .insertInto("project_environments")
      .values({ project_id: projectId, environment_name: environment, default_strategy: null })
      .onConflict((oc) => oc.columns(["project_id", "environment_name"]).doNothing())
      .returning("environment_name")
      .executeTakeFirst()) !== undefined,

  unlinkEnvironment: (db: Db, projectId: string, environment: string) =>
    db
      .deleteFrom("project_environments")
      .where("project_id", "=", projectId)
      .where("environment_name", "=", environment)
      .execute(),
};
