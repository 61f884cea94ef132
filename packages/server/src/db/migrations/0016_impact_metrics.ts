import { type Kysely, sql } from "kysely";

// Impact metrics SDKs report. A series is a metric (name and type) with one set of labels,
// known by its labels in a canonical text; its points are what arrived in each window of
// the configured resolution (counters and histograms added up, gauges their last value),
// deleted once older than the retention. Charts an admin puts on a flag go with the flag.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table impact_metric_series (
      id serial primary key,
      name text not null,
      type text not null check (type in ('counter', 'gauge', 'histogram')),
      help text not null,
      labels jsonb not null,
      labels_key text not null,
      created_at timestamptz not null default now(),
      unique (name, labels_key)
    );
    create index impact_metric_series_metric on impact_metric_series (name, type);
    create table impact_metric_points (
      series_id integer not null references impact_metric_series (id) on delete cascade,
      bucket timestamptz not null,
      value double precision not null default 0,
      count double precision,
      sum double precision,
      buckets jsonb,
      primary key (series_id, bucket)
    );
    create index impact_metric_points_bucket on impact_metric_points (bucket);
    create table impact_metric_configs (
      id text primary key,
      feature_name text not null references features (name) on update cascade on delete cascade,
      metric_name text not null,
      time_range text not null,
      aggregation_mode text not null,
      label_selectors jsonb not null default '{}',
      y_axis_min text not null default 'auto',
      title text,
      created_at timestamptz not null default now()
    );
    create index impact_metric_configs_feature on impact_metric_configs (feature_name, created_at);
  `.execute(db);
}
