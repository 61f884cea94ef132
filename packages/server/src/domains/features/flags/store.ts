import { type Selectable, sql, type Updateable } from "kysely";
import type { Db } from "../../../db/connection.js";
import type { FeatureTable, VariantRow } from "../../../db/schema.js";

export type FeatureRow = Selectable<FeatureTable>;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/** The flags (`features`) and their state per environment (`feature_environments`). */
export const flagStore = {
  find: (db: Db, name: string) =>
    db.selectFrom("features").selectAll().where("name", "=", name).executeTakeFirst(),

  insert: (
    db: Db,
    feature: {
      name: string;
      project: string;
      type: string;
      description: string | null;
      impressionData: boolean;
      createdBy: string;
    },
  ) =>
    db
      .insertInto("features")
      .values({
        name: feature.name,
        project: feature.project,
        type: feature.type,
        description: feature.description,
        impression_data: feature.impressionData,
        created_by: feature.createdBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),

  update: (db: Db, name: string, changes: Updateable<FeatureTable>) =>
    db.updateTable("features").set(changes).where("name", "=", name).execute(),

  remove: (db: Db, names: string[]) =>
    names.length === 0 ? Promise.resolve() : db.deleteFrom("features").where("name", "in", names).execute(),

  countActive: async (db: Db, project: string) =>
    Number(
      (
        await db
          .selectFrom("features")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("project", "=", project)
          .where("archived_at", "is", null)
          .executeTakeFirst()
      )?.count ?? 0,
    ),

  /** A project's active flags, newest first, for the project listing (endpoint 14). */
  inProject: (db: Db, project: string, namePrefix: string | undefined) => {
    let query = db
      .selectFrom("features")
      .selectAll()
      .where("project", "=", project)
      .where("archived_at", "is", null);
    if (namePrefix) query = query.where("name", "like", `${escapeLike(namePrefix)}%`);
    return query.orderBy("created_at", "desc").orderBy("name").execute();
  },

  /** Every flag of a project, archived ones too, by name. */
  allInProject: (db: Db, project: string) =>
    db
      .selectFrom("features")
      .select(["name", "project", "archived_at"])
      .where("project", "=", project)
      .orderBy("name")
      .execute(),

  archived: (db: Db, project: string | undefined) => {
    let query = db.selectFrom("features").selectAll().where("archived_at", "is not", null);
    if (project) query = query.where("project", "=", project);
    return query.orderBy("archived_at", "desc").execute();
  },

  activeAmong: async (db: Db, names: string[]) =>
    names.length === 0
      ? []
      : (
          await db
            .selectFrom("features")
            .select("name")
            .where("name", "in", names)
            .where("archived_at", "is", null)
            .execute()
        ).map((row) => row.name),

  /** What a project's listing counts of its flags, per project. */
  figures: (db: Db, projects: string[]) =>
    projects.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("features as f")
          .select((eb) => [
            "f.project",
            eb.fn.countAll<number>().filterWhere("f.archived_at", "is", null).as("featureCount"),
            eb.fn
              .countAll<number>()
              .filterWhere((eb) => eb.and([eb("f.archived_at", "is", null), eb("f.stale", "=", true)]))
              .as("staleCount"),
            eb.fn
              .countAll<number>()
              .filterWhere((eb) =>
                eb.and([
                  eb("f.archived_at", "is", null),
                  eb("f.stale", "=", false),
                  eb("f.potentially_stale", "=", true),
                ]),
              )
              .as("potentiallyStaleCount"),
            eb
              .selectFrom("feature_environments as fe")
              .innerJoin("features as seen", "seen.name", "fe.feature_name")
              .whereRef("seen.project", "=", "f.project")
              .select((eb) => eb.fn.max("fe.last_seen_at").as("at"))
              .as("lastReportedFlagUsage"),
          ])
          .where("f.project", "in", projects)
          .groupBy("f.project")
          .execute(),

  // The environments' type and order come along: how a flag's environments are shown.
  environments: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_environments as fe")
          .innerJoin("environments as e", "e.name", "fe.environment")
          .select([
            "fe.feature_name",
            "fe.environment",
            "fe.enabled",
            "fe.variants",
            "fe.last_seen_at",
            "e.type",
            "e.sort_order",
          ])
          .where("fe.feature_name", "in", names)
          .orderBy("e.sort_order")
          .orderBy("e.name")
          .execute(),

  addEnvironments: async (db: Db, name: string, environments: string[]) => {
    if (environments.length === 0) return;
    await db
      .insertInto("feature_environments")
      .values(environments.map((environment) => ({ feature_name: name, environment })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  /** Gives every flag of the project a row in the environment, disabled, as a new flag gets. */
  addProjectEnvironment: (db: Db, project: string, environment: string) =>
    db
      .insertInto("feature_environments")
      .columns(["feature_name", "environment"])
      .expression((eb) =>
        eb
          .selectFrom("features")
          .select((eb) => ["name", eb.val(environment).as("environment")])
          .where("project", "=", project),
      )
      .onConflict((oc) => oc.columns(["feature_name", "environment"]).doNothing())
      .execute(),

  removeProjectEnvironment: (db: Db, project: string, environment: string) =>
    db
      .deleteFrom("feature_environments")
      .where("environment", "=", environment)
      .where("feature_name", "in", db.selectFrom("features").select("name").where("project", "=", project))
      .execute(),

  setEnabled: (db: Db, name: string, environment: string, enabled: boolean) =>
    db
      .updateTable("feature_environments")
      .set({ enabled })
      .where("feature_name", "=", name)
      .where("environment", "=", environment)
      .execute(),

  setVariants: async (db: Db, name: string, environments: string[], variants: VariantRow[]) => {
    // A project may have no environments at all: `in ()` is not SQL.
    if (environments.length === 0) return;
    await db
      .updateTable("feature_environments")
      .set({ variants: JSON.stringify(variants) })
      .where("feature_name", "=", name)
      .where("environment", "in", environments)
      .execute();
  },

  /** Stamps `lastSeenAt` on the flags that exist among `names`, and returns those names. */
  async markSeen(db: Db, environment: string, names: string[], at: Date): Promise<string[]> {
    const seen = await db
      .updateTable("feature_environments")
      .set({ last_seen_at: sql`greatest(coalesce(last_seen_at, ${at}), ${at})` })
      .where("environment", "=", environment)
      .where("feature_name", "in", names)
      .returning("feature_name")
      .execute();
    await db
      .updateTable("features")
      .set({ last_seen_at: sql`greatest(coalesce(last_seen_at, ${at}), ${at})` })
      .where("name", "in", names)
      .execute();
    return seen.map((row) => row.feature_name);
  },
};
