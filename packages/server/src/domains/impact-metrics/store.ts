import type { ImpactLabels, ImpactMetricType } from "@signalbox/protocol";
import { sql } from "kysely";
import type { Db } from "../../db/connection.js";

export interface SeriesRef {
  id: number;
  name: string;
  labels_key: string;
}

export interface NewSeries {
  name: string;
  type: ImpactMetricType;
  help: string;
  labels: ImpactLabels;
  labels_key: string;
}

export interface CounterPoint {
  series_id: number;
  bucket: string;
  value: number;
}

export interface HistogramPoint {
  series_id: number;
  bucket: string;
  count: number;
  sum: number;
  buckets: Record<string, number>;
}

/** Where a query's points are grouped: `steps` steps of `stepSeconds` from `from`. */
export interface StepGrid {
  seriesIds: number[];
  /** Points whose window starts at or after this are read… */
  since: Date;
  /** …up to this one. */
  until: Date;
  from: Date;
  stepSeconds: number;
  steps: number;
}

export interface ConfigInput {
  id: string;
  feature_name: string;
  metric_name: string;
  time_range: string;
  aggregation_mode: string;
  label_selectors: Record<string, string[]>;
  y_axis_min: string;
  title: string | null;
}

/** Points in a statement's JSON parameter: one parameter however many rows (a statement holds at most 65 535). */
const json = (rows: unknown[]) => JSON.stringify(rows);

/** The step a point's window falls in, within the grid. */
const stepOf = (grid: StepGrid) =>
  sql<number>`least(${grid.steps - 1}::int, greatest(0, floor((extract(epoch from bucket)::float8 - ${
    grid.from.getTime() / 1000
  }::float8) / ${grid.stepSeconds}::float8)))::int`;

const inGrid = (grid: StepGrid) => sql`series_id in (${sql.join(grid.seriesIds)})
  and bucket >= ${grid.since.toISOString()}::timestamptz and bucket <= ${grid.until.toISOString()}::timestamptz`;

/**
 * Impact metrics: their series (`impact_metric_series`), the points of each
 * (`impact_metric_points`), and the charts admins put on flags (`impact_metric_configs`).
 */
export const impactMetricsStore = {
  /** The series among `wanted` (by name and labels key) that exist. */
  async findSeries(db: Db, wanted: { name: string; labels_key: string }[]): Promise<SeriesRef[]> {
    if (wanted.length === 0) return [];
    const { rows } = await sql<SeriesRef>`
      select s.id, s.name, s.labels_key
      from impact_metric_series s
      join jsonb_to_recordset(${json(wanted)}::jsonb) as r (name text, labels_key text)
        on s.name = r.name and s.labels_key = r.labels_key
    `.execute(db);
    return rows;
  },

  /** How many series each metric (name and type) has. */
  async sizes(db: Db): Promise<{ name: string; type: ImpactMetricType; series: number }[]> {
    const rows = await db
      .selectFrom("impact_metric_series")
      .select((eb) => ["name", "type", eb.fn.countAll<string>().as("series")])
      .groupBy(["name", "type"])
      .execute();
    return rows.map((row) => ({ ...row, series: Number(row.series) }));
  },

  /** Adds series; one another instance added meanwhile is left as it is (and not returned). */
  async insertSeries(db: Db, series: NewSeries[]): Promise<SeriesRef[]> {
    if (series.length === 0) return [];
    const { rows } = await sql<SeriesRef>`
      insert into impact_metric_series (name, type, help, labels, labels_key)
      select name, type, help, labels, labels_key
      from jsonb_to_recordset(${json(series)}::jsonb) as r (
        name text, type text, help text, labels jsonb, labels_key text
      )
      order by name, labels_key
      on conflict (name, labels_key) do nothing
      returning id, name, labels_key
    `.execute(db);
    return rows;
  },

  /** Adds counters' increases to their windows' points, in series order (so that writers lock rows alike). */
  async addCounters(db: Db, points: CounterPoint[]): Promise<void> {
    if (points.length === 0) return;
    await sql`
      insert into impact_metric_points (series_id, bucket, value)
      select series_id, bucket, value
      from jsonb_to_recordset(${json(points)}::jsonb) as r (series_id integer, bucket timestamptz, value float8)
      order by series_id, bucket
      on conflict (series_id, bucket) do update set value = impact_metric_points.value + excluded.value
    `.execute(db);
  },

  /** Sets gauges' values in their windows' points: the last one written stays. */
  async setGauges(db: Db, points: CounterPoint[]): Promise<void> {
    if (points.length === 0) return;
    await sql`
      insert into impact_metric_points (series_id, bucket, value)
      select series_id, bucket, value
      from jsonb_to_recordset(${json(points)}::jsonb) as r (series_id integer, bucket timestamptz, value float8)
      order by series_id, bucket
      on conflict (series_id, bucket) do update set value = excluded.value
    `.execute(db);
  },

  /** Adds histograms' observations to their windows' points, bucket counts per upper bound. */
  async addHistograms(db: Db, points: HistogramPoint[]): Promise<void> {
    if (points.length === 0) return;
    await sql`
      insert into impact_metric_points (series_id, bucket, value, count, sum, buckets)
      select series_id, bucket, 0, count, sum, buckets
      from jsonb_to_recordset(${json(points)}::jsonb) as r (
        series_id integer, bucket timestamptz, count float8, sum float8, buckets jsonb
      )
      order by series_id, bucket
      on conflict (series_id, bucket) do update set
        count = coalesce(impact_metric_points.count, 0) + excluded.count,
        sum = coalesce(impact_metric_points.sum, 0) + excluded.sum,
        buckets = (
          select coalesce(jsonb_object_agg(le, total), '{}'::jsonb) from (
            select key as le, sum(value::float8) as total from (
              select * from jsonb_each_text(coalesce(impact_metric_points.buckets, '{}'::jsonb))
              union all
              select * from jsonb_each_text(excluded.buckets)
            ) counts group by key
          ) sums
        )
    `.execute(db);
  },

  /** Every metric (name and type) with its help text, by name. */
  metrics(db: Db) {
    return db
      .selectFrom("impact_metric_series")
      .select((eb) => ["name", "type", eb.fn.max("help").as("help")])
      .groupBy(["name", "type"])
      .orderBy("name")
      .orderBy("type")
      .execute();
  },

  /** A metric's series (or every metric's, without a name) with their labels. */
  series(db: Db, metric?: { name: string; type: ImpactMetricType }) {
    let select = db.selectFrom("impact_metric_series").select(["id", "name", "type", "labels"]);
    if (metric) select = select.where("name", "=", metric.name).where("type", "=", metric.type);
    return select.orderBy("id").execute();
  },

  /** Counters' increases (or histograms' observations, in `count`) summed per step. */
  async sums(db: Db, grid: StepGrid): Promise<{ step: number; value: number; count: number }[]> {
    if (grid.seriesIds.length === 0) return [];
    const { rows } = await sql<{ step: number; value: number; count: number }>`
      select ${stepOf(grid)} as step, sum(value)::float8 as value, coalesce(sum(count), 0)::float8 as count
      from impact_metric_points where ${inGrid(grid)}
      group by 1 order by 1
    `.execute(db);
    return rows;
  },

  /** Each gauge's last value in each step. */
  async lastValues(db: Db, grid: StepGrid): Promise<{ step: number; series_id: number; value: number }[]> {
    if (grid.seriesIds.length === 0) return [];
    const { rows } = await sql<{ step: number; series_id: number; value: number }>`
      select distinct on (series_id, step) step, series_id, value from (
        select ${stepOf(grid)} as step, series_id, bucket, value
        from impact_metric_points where ${inGrid(grid)}
      ) points
      order by series_id, step, bucket desc
    `.execute(db);
    return rows;
  },

  /** Histograms' bucket counts summed per step and upper bound. */
  async bucketCounts(db: Db, grid: StepGrid): Promise<{ step: number; le: string; count: number }[]> {
    if (grid.seriesIds.length === 0) return [];
    const { rows } = await sql<{ step: number; le: string; count: number }>`
      select step, b.key as le, sum(b.value::float8)::float8 as count from (
        select ${stepOf(grid)} as step, buckets
        from impact_metric_points where ${inGrid(grid)} and buckets is not null
      ) points, jsonb_each_text(points.buckets) b
      group by 1, 2
    `.execute(db);
    return rows;
  },

  /** Deletes points older than `before`, then series left without points made before it. */
  async prune(db: Db, before: Date): Promise<{ points: number; series: number }> {
    const points = await db
      .deleteFrom("impact_metric_points")
      .where("bucket", "<", before)
      .executeTakeFirst();
    const series = await db
      .deleteFrom("impact_metric_series")
      .where("created_at", "<", before)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("impact_metric_points")
              .select("series_id")
              .whereRef("impact_metric_points.series_id", "=", "impact_metric_series.id"),
          ),
        ),
      )
      .executeTakeFirst();
    return { points: Number(points.numDeletedRows), series: Number(series.numDeletedRows) };
  },

  configs(db: Db, featureName: string) {
    return db
      .selectFrom("impact_metric_configs")
      .selectAll()
      .where("feature_name", "=", featureName)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  },

  config(db: Db, id: string) {
    return db.selectFrom("impact_metric_configs").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async saveConfig(db: Db, config: ConfigInput): Promise<void> {
    const values = { ...config, label_selectors: JSON.stringify(config.label_selectors) };
    const { id: _, feature_name: __, ...changes } = values;
    await db
      .insertInto("impact_metric_configs")
      .values(values)
      .onConflict((oc) => oc.column("id").doUpdateSet(changes))
      .execute();
  },

  async deleteConfig(db: Db, featureName: string, id: string): Promise<void> {
    await db
      .deleteFrom("impact_metric_configs")
      .where("feature_name", "=", featureName)
      .where("id", "=", id)
      .execute();
  },
};
