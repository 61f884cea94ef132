import { type Kysely, sql } from "kysely";

// Where each outbox consumer stands in the event log: the last event it acknowledged, and
// which instance is delivering to it until when (a lease, so an instance that died
// mid-delivery gives the consumer up without anyone holding a connection open for it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table outbox_cursors (
      consumer text primary key,
      position bigint not null,
      updated_at timestamptz not null default now(),
      holder text,
      held_until timestamptz
    )
  `.execute(db);
}
