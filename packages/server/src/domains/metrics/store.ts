import { sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ApplicationQuery, ApplicationSettings } from "./schemas.js";

export interface ApplicationInput {
  appName: string;
  sdkVersion?: string;
  strategies?: string[];
}

export type SdkType = "frontend" | "backend";

export interface InstanceInput {
  appName: string;
  instanceId: string;
  environment: string;
  sdkType: SdkType;
  sdkVersion?: string;
  clientIp?: string;
  started?: Date;
  interval?: number;
}

export interface MetricRow {
  featureName: string;
  appName: string;
  environment: string;
  hour: Date;
  yes: number;
  no: number;
  variants: Record<string, number>;
}

const metricRow = (row: {
  feature_name: string;
  app_name: string;
  environment: string;
  timestamp: Date;
  yes: number;
  no: number;
  variants: Record<string, number>;
}): MetricRow => ({
  featureName: row.feature_name,
  appName: row.app_name,
  environment: row.environment,
  hour: row.timestamp,
  yes: row.yes,
  no: row.no,
  variants: row.variants,
});

/** Code-point order, the same in every process, unlike a locale's. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const sortColumns = { appName: "app_name", createdAt: "created_at", updatedAt: "updated_at" } as const;

/**
 * What SDKs tell of themselves: applications (`client_applications`), their instances
 * (`client_instances`), where their tokens put them (`client_application_usage`) and their
 * hourly counts (`client_metrics`).
 */
export const metricsStore = {
  /** Inserts or refreshes an application; true when it is new. */
  async upsertApplication(db: Db, app: ApplicationInput): Promise<boolean> {
    const row = await db
      .insertInto("client_applications")
      .values({
        app_name: app.appName,
        sdk_version: app.sdkVersion ?? null,
        strategies: JSON.stringify(app.strategies ?? []),
        updated_at: new Date(),
      })
      .onConflict((oc) =>
        oc.column("app_name").doUpdateSet((eb) => ({
          sdk_version: sql`coalesce(${eb.ref("excluded.sdk_version")}, client_applications.sdk_version)`,
          strategies: app.strategies ? eb.ref("excluded.strategies") : sql`client_applications.strategies`,
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      // xmax is 0 only for a row this statement inserted.
      .returning(sql<boolean>`xmax = 0`.as("inserted"))
      .executeTakeFirstOrThrow();
    return row.inserted;
  },

  async upsertInstance(db: Db, instance: InstanceInput): Promise<void> {
    await db
      .insertInto("client_instances")
      .values({
        app_name: instance.appName,
        instance_id: instance.instanceId,
        environment: instance.environment,
        sdk_version: instance.sdkVersion ?? null,
        client_ip: instance.clientIp ?? null,
        sdk_type: instance.sdkType,
        started: instance.started ?? null,
        interval: instance.interval ?? null,
        last_seen: new Date(),
      })
      .onConflict((oc) =>
        oc.columns(["app_name", "instance_id", "environment"]).doUpdateSet((eb) => ({
          sdk_version: sql`coalesce(${eb.ref("excluded.sdk_version")}, client_instances.sdk_version)`,
          client_ip: eb.ref("excluded.client_ip"),
          sdk_type: eb.ref("excluded.sdk_type"),
          started: sql`coalesce(${eb.ref("excluded.started")}, client_instances.started)`,
          interval: sql`coalesce(${eb.ref("excluded.interval")}, client_instances.interval)`,
          last_seen: eb.ref("excluded.last_seen"),
        })),
      )
      .execute();
  },

  /** Deletes hourly counts and instances older than `before`; returns how many rows went. */
  async prune(db: Db, before: Date): Promise<{ metrics: number; instances: number }> {
    const metrics = await db.deleteFrom("client_metrics").where("timestamp", "<", before).executeTakeFirst();
    const instances = await db
      .deleteFrom("client_instances")
      .where("last_seen", "<", before)
      .executeTakeFirst();
    return { metrics: Number(metrics.numDeletedRows), instances: Number(instances.numDeletedRows) };
  },

  async addUsage(db: Db, appName: string, projects: string[], environment: string): Promise<void> {
    await db
      .insertInto("client_application_usage")
      .values(projects.map((project) => ({ app_name: appName, project, environment })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  /**
   * Adds counts to the hour's, one statement for a report however many flags it names: the
   * rows travel as one JSON parameter (a statement holds at most 65 535 parameters), by flag
   * name, so that reports of the same flags lock their rows in the same order.
   */
  async addMetrics(db: Db, rows: MetricRow[]): Promise<void> {
    const sorted = rows
      .map((row) => ({
        feature_name: row.featureName,
        app_name: row.appName,
        environment: row.environment,
        timestamp: row.hour.toISOString(),
        yes: row.yes,
        no: row.no,
        variants: row.variants,
      }))
      .sort((a, b) => compare(a.feature_name, b.feature_name));
    await sql`
      insert into client_metrics (feature_name, app_name, environment, timestamp, yes, no, variants)
      select feature_name, app_name, environment, timestamp, yes, no, variants
      from jsonb_to_recordset(${JSON.stringify(sorted)}::jsonb) as r (
        feature_name text, app_name text, environment text, timestamp timestamptz,
        yes bigint, no bigint, variants jsonb
      )
      on conflict (feature_name, app_name, environment, timestamp) do update set
        yes = client_metrics.yes + excluded.yes,
        no = client_metrics.no + excluded.no,
        -- Variant counts add up per name.
        variants = (
          select coalesce(jsonb_object_agg(key, total), '{}'::jsonb) from (
            select key, sum(value::bigint) as total from (
              select * from jsonb_each_text(client_metrics.variants)
              union all
              select * from jsonb_each_text(excluded.variants)
            ) counts group by key
          ) sums
        )
    `.execute(db);
  },

  async listApplications(db: Db, query: ApplicationQuery) {
    let select = db.selectFrom("client_applications");
    // Several comma-separated terms find the applications matching any of them, as in the reference.
    const terms = (query.query ?? "")
      .split(",")
      .map((term) => term.trim())
      .filter(Boolean);
    if (terms.length > 0) {
      select = select.where((eb) =>
        eb.or(terms.map((term) => eb("app_name", "ilike", `%${term.replace(/[\\%_]/g, "\\$&")}%`))),
      );
    }
    const [rows, count] = await Promise.all([
      select
        .selectAll()
        .orderBy(sortColumns[query.sortBy], query.sortOrder)
        .orderBy("app_name")
        .limit(query.limit)
        .offset(query.offset)
        .execute(),
      select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirst(),
    ]);
    const names = rows.map((row) => row.app_name);
    const usage =
      names.length === 0
        ? []
        : await db
            .selectFrom("client_application_usage")
            .selectAll()
            .where("app_name", "in", names)
            .orderBy("project")
            .orderBy("environment")
            .execute();
    const instances =
      names.length === 0
        ? []
        : await db
            .selectFrom("client_instances")
            .select((eb) => [
              "app_name",
              "sdk_version",
              eb.fn.countAll<number>().as("count"),
              eb.fn.max("last_seen").as("last_seen"),
            ])
            .where("app_name", "in", names)
            .groupBy(["app_name", "sdk_version"])
            .execute();
    return { rows, total: Number(count?.count ?? 0), usage, instances };
  },

  application(db: Db, appName: string) {
    return db
      .selectFrom("client_applications")
      .selectAll()
      .where("app_name", "=", appName)
      .executeTakeFirst();
  },

  usageOf(db: Db, appName: string) {
    return db
      .selectFrom("client_application_usage")
      .select(["project", "environment"])
      .where("app_name", "=", appName)
      .orderBy("project")
      .orderBy("environment")
      .execute();
  },

  /** An application's instances, the most recently heard from first. */
  instancesOf(db: Db, appName: string, filter: { environment?: string; since?: Date } = {}) {
    let select = db.selectFrom("client_instances").selectAll().where("app_name", "=", appName);
    if (filter.environment !== undefined) select = select.where("environment", "=", filter.environment);
    if (filter.since !== undefined) select = select.where("last_seen", ">=", filter.since);
    return select.orderBy("last_seen", "desc").orderBy("instance_id").execute();
  },

  /** Creates the application or changes the settings given, leaving the others; true when it is new. */
  async saveApplication(db: Db, appName: string, settings: ApplicationSettings): Promise<boolean> {
    const given = {
      ...(settings.description === undefined ? {} : { description: settings.description }),
      ...(settings.url === undefined ? {} : { url: settings.url }),
      ...(settings.color === undefined ? {} : { color: settings.color }),
      ...(settings.icon === undefined ? {} : { icon: settings.icon }),
      ...(settings.strategies === undefined ? {} : { strategies: JSON.stringify(settings.strategies) }),
      updated_at: new Date(),
    };
    const row = await db
      .insertInto("client_applications")
      .values({ app_name: appName, ...given })
      .onConflict((oc) => oc.column("app_name").doUpdateSet(given))
      .returning(sql<boolean>`xmax = 0`.as("inserted"))
      .executeTakeFirstOrThrow();
    return row.inserted;
  },

  /** Deletes an application with its instances and usage; its hourly counts age out as usual. */
  async deleteApplication(db: Db, appName: string): Promise<void> {
    await db.deleteFrom("client_instances").where("app_name", "=", appName).execute();
    await db.deleteFrom("client_applications").where("app_name", "=", appName).execute();
  },

  /** A flag's hourly counts from the hour that holds `since` on. */
  async metricsOfFlag(db: Db, featureName: string, since: Date): Promise<MetricRow[]> {
    const rows = await db
      .selectFrom("client_metrics")
      .selectAll()
      .where("feature_name", "=", featureName)
      .where("timestamp", ">=", since)
      .orderBy("environment")
      .orderBy("app_name")
      .orderBy("timestamp")
      .execute();
    return rows.map(metricRow);
  },

  /** The applications that reported use of a flag from `since` on, by name. */
  async appsUsingFlag(db: Db, featureName: string, since: Date): Promise<string[]> {
    const rows = await db
      .selectFrom("client_metrics")
      .select("app_name")
      .distinct()
      .where("feature_name", "=", featureName)
      .where("timestamp", ">=", since)
      .orderBy("app_name")
      .execute();
    return rows.map((row) => row.app_name);
  },

  /** The flags an application reported using, in each environment, from `since` on. */
  flagsUsedBy(db: Db, appName: string, since: Date) {
    return db
      .selectFrom("client_metrics")
      .select(["feature_name", "environment"])
      .distinct()
      .where("app_name", "=", appName)
      .where("timestamp", ">=", since)
      .orderBy("feature_name")
      .orderBy("environment")
      .execute();
  },
};
