import { type Selectable, sql, type Updateable } from "kysely";
import type { Db } from "../../../db/connection.js";
import type { FeatureTable, VariantRow } from "../../../db/schema.js";
import type { FlagSearch } from "./search-filter.js";

export type FeatureRow = Selectable<FeatureTable>;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

const SORTABLE = { name: "name", type: "type", stale: "stale", project: "project" } as const;

/** The flags (`features`) and their state per environment (`feature_environments`). */
export const flagStore = {
  find: (db: Db, name: string) =>
    db.selectFrom("features").selectAll().where("name", "=", name).executeTakeFirst(),

  activeNamed: async (db: Db, names: string[]) =>
    names.length === 0
      ? []
      : db
          .selectFrom("features")
          .selectAll()
          .where("name", "in", names)
          .where("archived_at", "is", null)
          .execute(),

  insert: (
    db: Db,
    feature: {
      name: string;
      project: string;
      type: string;
      description: string | null;
      impressionData: boolean;
      createdBy: string;
      createdByUserId: number | null;
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
        created_by_user_id: feature.createdByUserId,
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

  /** The flags a search matches on what their own tables hold, in the order asked for. */
  search: (db: Db, search: FlagSearch) => {
    let query = db.selectFrom("features").selectAll("features");
    if (search.archived !== "any")
      query = query.where("archived_at", search.archived === "active" ? "is" : "is not", null);
    if (search.hidden.length > 0) query = query.where("project", "not in", search.hidden);
    for (const [column, filter] of [
      ["project", search.projects],
      ["type", search.types],
      ["created_by_user_id", search.createdBy],
    ] as const) {
      if (!filter) continue;
      const values = filter.values as (string | number)[];
      if (values.length > 0) query = query.where(column, filter.include ? "in" : "not in", values);
      else if (filter.include) query = query.where(sql<boolean>`false`);
    }
    const staleness = search.staleness;
    if (staleness) {
      query = query.where((eb) => {
        const any = eb.or(
          staleness.values.map((value) =>
            value === "active"
              ? eb("stale", "=", false)
              : value === "stale"
                ? eb("stale", "=", true)
                : value === "potentially-stale"
                  ? eb.and([eb("stale", "=", false), eb("potentially_stale", "=", true)])
                  : sql<boolean>`false`,
          ),
        );
        return staleness.include ? any : eb.not(any);
      });
    }
    for (const [column, filter] of [
      ["created_at", search.createdAt],
      ["last_seen_at", search.lastSeenAt],
    ] as const) {
      if (filter) query = query.where(column, filter.before ? "<" : ">=", filter.date);
    }
    if (search.terms.length > 0) {
      const patterns = search.terms.map((term) => `%${escapeLike(term)}%`);
      query = query.where((eb) =>
        eb.or(
          patterns.flatMap((pattern) => [eb("name", "ilike", pattern), eb("description", "ilike", pattern)]),
        ),
      );
    }
    if (search.statuses.length > 0) {
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom("feature_environments as fe")
            .select("fe.feature_name")
            .whereRef("fe.feature_name", "=", "features.name")
            .where((inner) =>
              inner.or(
                search.statuses.map((status) =>
                  inner.and([
                    inner("fe.environment", "=", status.environment),
                    inner("fe.enabled", "=", status.enabled),
                  ]),
                ),
              ),
            ),
        ),
      );
    }
    // Ties fall to the oldest flag first, then the name, as the reference orders them.
    const order = sql.raw(search.sortOrder);
    const environment = search.sortBy.startsWith("environment:") ? search.sortBy.slice(12) : undefined;
    const column = Object.hasOwn(SORTABLE, search.sortBy)
      ? SORTABLE[search.sortBy as keyof typeof SORTABLE]
      : undefined;
    if (environment !== undefined) {
      query = query.orderBy(
        sql`(select fe.enabled from feature_environments fe where fe.feature_name = features.name and fe.environment = ${environment}) ${order} nulls last`,
      );
    } else if (search.sortBy === "lastSeenAt") {
      query = query.orderBy(sql`features.last_seen_at ${order} nulls last`);
    } else if (column) {
      query = query.orderBy(column, search.sortOrder);
    } else {
      return query.orderBy("created_at", search.sortOrder).orderBy("name").execute();
    }
    return query.orderBy("created_at").orderBy("name").execute();
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

  /**
   * Marks the active flags that are not stale and were created before their type's cutoff,
   * and returns those it marked. Rows another transaction is marking are skipped, and a row
   * marked since this statement began no longer qualifies once its lock is taken: each flag
   * is marked once, however many instances run this at the same time.
   */
  markPotentiallyStale: (db: Db, cutoffs: { type: string; createdBefore: Date }[]) =>
    cutoffs.length === 0
      ? Promise.resolve([])
      : db
          .updateTable("features")
          .set({ potentially_stale: true })
          .where(
            "name",
            "in",
            db
              .selectFrom("features")
              .select("name")
              .where("archived_at", "is", null)
              .where("stale", "=", false)
              .where("potentially_stale", "=", false)
              .where((eb) =>
                eb.or(
                  cutoffs.map((cutoff) =>
                    eb.and([eb("type", "=", cutoff.type), eb("created_at", "<=", cutoff.createdBefore)]),
                  ),
                ),
              )
              .forUpdate()
              .skipLocked(),
          )
          .returning(["name", "project", "archived_at"])
          .execute(),

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

  /** Switches flags off in every environment they have. */
  disableEverywhere: (db: Db, names: string[]) =>
    db
      .updateTable("feature_environments")
      .set({ enabled: false })
      .where("feature_name", "in", names)
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
