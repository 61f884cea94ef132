import { type Kysely, sql } from "kysely";

// Each enabled addon gets a cursor of its own ("addon:<id>") in place of the one all addons
// shared ("addons"), so that one addon retrying a dead destination holds up no other. Each
// starts where the shared one was: nothing is delivered twice or skipped by the upgrade.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into outbox_cursors (consumer, position)
    select 'addon:' || addons.id,
           coalesce(
             (select position from outbox_cursors where consumer = 'addons'),
             (select max(id) from events),
             0
           )
    from addons
    where addons.enabled
    on conflict (consumer) do nothing;
    delete from outbox_cursors where consumer = 'addons';
  `.execute(db);
}
