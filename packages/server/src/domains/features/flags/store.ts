import { type Selectable, sql, type Updateable } from "kysely";
import { anyOf } from "../../../db/any-of.js";
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

  /** The flags among `names`, archived ones too, in no particular order. */
  named: async (db: Db, names: readonly string[]) =>
    names.length === 0
      ? []
      : db.selectFrom("features").selectAll().where("name", "=", anyOf(names)).execute(),

  activeNamed: async (db: Db, names: string[]) =>
    names.length === 0
      ? []
      : db
          .selectFrom("features")
          .selectAll()
          .where("name", "=", anyOf(names))
          .where("archived_at", "is", null)
          .execute(),

  /**
   * Inserts flags, one statement for all of them: the rows travel as one JSON parameter (a
   * statement holds at most 65 535 parameters). Returns their rows, in no particular order.
   */
  insert: async (
    db: Db,
    features: {
      name: string;
      project: string;
      type: string;
      description: string | null;
      impressionData: boolean;
      createdBy: string;
      createdByUserId: number | null;
    }[],
  ): Promise<FeatureRow[]> => {
    if (features.length === 0) return [];
    const rows = features.map((feature) => ({
      name: feature.name,
      project: feature.project,
      type: feature.type,
      description: feature.description,
      impression_data: feature.impressionData,
      created_by: feature.createdBy,
      created_by_user_id: feature.createdByUserId,
    }));
    const { rows: inserted } = await sql<FeatureRow>`
      insert into features (name, project, type, description, impression_data, created_by, created_by_user_id)
      select name, project, type, description, impression_data, created_by, created_by_user_id
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r (
        name text, project text, type text, description text, impression_data boolean,
        created_by text, created_by_user_id integer
      )
      returning *
    `.execute(db);
    return inserted;
  },

  /** The same change to each of the flags. */
  update: (db: Db, names: readonly string[], changes: Updateable<FeatureTable>) =>
    db.updateTable("features").set(changes).where("name", "=", anyOf(names)).execute(),

  /**
   * Writes each flag's metadata, one statement for all of them. A flag whose type or
   * staleness is set anew (`reset`) is no longer potentially stale.
   */
  setMetadata: async (
    db: Db,
    entries: {
      name: string;
      type: string;
      description: string | null;
      impression_data: boolean;
      stale: boolean;
      reset: boolean;
    }[],
  ) => {
    if (entries.length === 0) return;
    await sql`
      update features as f set
        type = r.type, description = r.description, impression_data = r.impression_data, stale = r.stale,
        potentially_stale = f.potentially_stale and not r.reset
      from jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) as r (
        name text, type text, description text, impression_data boolean, stale boolean, reset boolean
      )
      where f.name = r.name
    `.execute(db);
  },

  remove: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve()
      : db.deleteFrom("features").where("name", "=", anyOf(names)).execute(),

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
  search: (db: Db, search: FlagSearch) => searched(db, search).execute(),

  /** A page of those flags, and how many match in all. */
  searchPage: async (db: Db, search: FlagSearch, page: { offset: number; limit: number }) => {
    const rows = await searched(db, search)
      .select(sql<number>`count(*) over ()`.as("total"))
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    // A page past the last match counts none: the matches are counted on their own.
    const total =
      rows[0]?.total ??
      (page.offset === 0
        ? 0
        : (
            await db
              .selectFrom(searched(db, search).as("matches"))
              .select((eb) => eb.fn.countAll<number>().as("total"))
              .executeTakeFirstOrThrow()
          ).total);
    return { rows: rows.map(({ total: _total, ...row }) => row), total: Number(total) };
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
            .where("name", "=", anyOf(names))
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
          .where("fe.feature_name", "=", anyOf(names))
          .orderBy("e.sort_order")
          .orderBy("e.name")
          .execute(),

  /** Gives each flag a row in each environment, disabled, where it has none yet. */
  addEnvironments: async (db: Db, names: readonly string[], environments: readonly string[]) => {
    if (names.length === 0 || environments.length === 0) return;
    await sql`
      insert into feature_environments (feature_name, environment)
      select name, environment from unnest(${names}::text[]) as name, unnest(${environments}::text[]) as environment
      on conflict do nothing
    `.execute(db);
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
      .where("feature_name", "=", anyOf(names))
      .execute(),

  setEnabled: (db: Db, names: readonly string[], environment: string, enabled: boolean) =>
    db
      .updateTable("feature_environments")
      .set({ enabled })
      .where("feature_name", "=", anyOf(names))
      .where("environment", "=", environment)
      .execute(),

  /** Sets each flag's variants in the environments, one statement for all of them; a flag named once. */
  setVariants: async (
    db: Db,
    entries: { name: string; variants: VariantRow[] }[],
    environments: readonly string[],
  ) => {
    if (entries.length === 0 || environments.length === 0) return;
    await sql`
      update feature_environments as fe set variants = r.variants
      from jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) as r (name text, variants jsonb)
      where fe.feature_name = r.name and fe.environment = any(${environments}::text[])
    `.execute(db);
  },

  /**
   * Stamps each flag's `lastSeenAt` in the environment and overall, unless it was seen later
   * already; returns the names of the flags that have that environment. One statement per
   * table, the flags in name order, so that writes of the same flags lock them in one order.
   */
  async markSeen(
    db: Db,
    environment: string,
    seen: readonly { name: string; at: Date }[],
  ): Promise<string[]> {
    if (seen.length === 0) return [];
    const rows = JSON.stringify(
      [...seen]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(({ name, at }) => ({ name, at: at.toISOString() })),
    );
    const { rows: marked } = await sql<{ feature_name: string }>`
      update feature_environments as fe set last_seen_at = greatest(coalesce(fe.last_seen_at, r.at), r.at)
      from jsonb_to_recordset(${rows}::jsonb) as r (name text, at timestamptz)
      where fe.environment = ${environment} and fe.feature_name = r.name
      returning fe.feature_name
    `.execute(db);
    await sql`
      update features as f set last_seen_at = greatest(coalesce(f.last_seen_at, r.at), r.at)
      from jsonb_to_recordset(${rows}::jsonb) as r (name text, at timestamptz)
      where f.name = r.name
    `.execute(db);
    return marked.map((row) => row.feature_name);
  },
};

/** The query of the flags a search matches on what their own tables hold, in the order asked for. */
function searched(db: Db, search: FlagSearch) {
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
    return query.orderBy("created_at", search.sortOrder).orderBy("name");
  }
  return query.orderBy("created_at").orderBy("name");
}
