import { type Kysely, sql } from "kysely";

// The SDK documents' revision. Taking it from max(events.id) let commits that finish out of
// id order go unseen; one row advanced under its lock inside every writing transaction makes
// revision order commit order. It starts where the event log stands, so delta clients'
// revisions from before the upgrade stay meaningful.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table revision (
      id boolean primary key default true check (id),
      value bigint not null
    );
    insert into revision (value) select coalesce(max(id), 0) from events;
  `.execute(db);
}
