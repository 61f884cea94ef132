import { sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { FirstEnabled } from "./time-to-production.js";

/** A time window: from (included) to (excluded). */
export interface Window {
  from: Date;
  to: Date;
}

const count = (value: unknown) => Number(value ?? 0);

/**
 * What the insights read of other domains' tables. Insights own no table and write none:
 * every figure is counted when asked, from the rows the owning domains keep.
 */
export const insightsStore = {
  /** The project's active flags per type, by type name. */
  featureTypeCounts: async (db: Db, project: string) =>
    (
      await db
        .selectFrom("features")
        .select((eb) => ["type", eb.fn.countAll<number>().as("count")])
        .where("project", "=", project)
        .where("archived_at", "is", null)
        .groupBy("type")
        .orderBy("type")
        .execute()
    ).map((row) => ({ type: row.type, count: count(row.count) })),

  /**
   * Flags created (and still active, as the reference counts them) and flags archived in each
   * window, and the project's events in each.
   */
  async activity(db: Db, project: string, current: Window, past: Window) {
    const within = (column: string, window: Window) =>
      sql<number>`count(*) filter (where ${sql.ref(column)} >= ${window.from} and ${sql.ref(column)} < ${window.to})`;
    const [flags, events] = await Promise.all([
      db
        .selectFrom("features")
        .select([
          sql<number>`count(*) filter (where archived_at is null and created_at >= ${current.from} and created_at < ${current.to})`.as(
            "createdCurrent",
          ),
          sql<number>`count(*) filter (where archived_at is null and created_at >= ${past.from} and created_at < ${past.to})`.as(
            "createdPast",
          ),
          within("archived_at", current).as("archivedCurrent"),
          within("archived_at", past).as("archivedPast"),
        ])
        .where("project", "=", project)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom("events")
        .select([within("created_at", current).as("current"), within("created_at", past).as("past")])
        .where("project", "=", project)
        .where("created_at", ">=", past.from)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      createdCurrentWindow: count(flags.createdCurrent),
      createdPastWindow: count(flags.createdPast),
      archivedCurrentWindow: count(flags.archivedCurrent),
      archivedPastWindow: count(flags.archivedPast),
      projectActivityCurrentWindow: count(events.current),
      projectActivityPastWindow: count(events.past),
    };
  },

  /**
   * For each release flag of the projects (archived ones too) that was ever switched on in a
   * production-type environment after it was created, its creation and that first switch.
   */
  firstEnabledInProduction: async (db: Db, projects: string[]): Promise<FirstEnabled[]> =>
    projects.length === 0
      ? []
      : (
          await db
            .selectFrom("events as e")
            .innerJoin("environments as env", "env.name", "e.environment")
            .innerJoin("features as f", "f.name", "e.feature_name")
            .distinctOn("f.name")
            .select(["f.project", "f.name", "f.created_at as created", "e.created_at as enabled"])
            .where("e.type", "=", "feature-environment-enabled")
            .where("env.type", "=", "production")
            .where("f.type", "=", "release")
            // An event of an earlier flag of the same name, since deleted, is not this flag's.
            .whereRef("e.created_at", ">", "f.created_at")
            .where("f.project", "in", projects)
            .orderBy("f.name")
            .orderBy("e.created_at")
            .orderBy("e.id")
            .execute()
        ).map((row) => ({ ...row, created: new Date(row.created), enabled: new Date(row.enabled) })),

  /**
   * How many of the users holding a role in the project, themselves or through a group, first
   * did so at or after `since`.
   */
  async membersJoinedSince(db: Db, project: string, since: Date): Promise<number> {
    const memberships = db
      .selectFrom("project_user_roles")
      .select(["user_id", "created_at"])
      .where("project", "=", project)
      .unionAll(
        db
          .selectFrom("project_group_roles as pgr")
          .innerJoin("group_users as gu", "gu.group_id", "pgr.group_id")
          .select(["gu.user_id", "pgr.created_at"])
          .where("pgr.project", "=", project),
      );
    const members = db
      .selectFrom(memberships.as("membership"))
      .select((eb) => ["membership.user_id", eb.fn.min("membership.created_at").as("joined")])
      .groupBy("membership.user_id");
    const row = await db
      .selectFrom(members.as("member"))
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("member.joined", ">=", since)
      .executeTakeFirstOrThrow();
    return count(row.count);
  },
};
