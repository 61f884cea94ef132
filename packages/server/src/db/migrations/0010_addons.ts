import { type Kysely, sql } from "kysely";

// Addons (integrations) and the log of what each delivered. The log is a bounded tail per
// addon, cut after every write; it goes with its addon.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table addons (
      id serial primary key,
      provider text not null,
      description text,
      enabled boolean not null default true,
      parameters jsonb not null default '{}',
      events jsonb not null default '[]',
      projects jsonb not null default '[]',
      environments jsonb not null default '[]',
      created_at timestamptz not null default now()
    );
    create table integration_events (
      id bigserial primary key,
      integration_id integer not null references addons (id) on delete cascade,
      created_at timestamptz not null default now(),
      state text not null,
      state_details text not null,
      event jsonb not null,
      details jsonb not null,
      attempts jsonb not null default '[]'
    );
    create index integration_events_by_addon on integration_events (integration_id, id desc);
  `.execute(db);
}
