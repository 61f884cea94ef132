import { sql } from "kysely";
import type { TestServer } from "./server.js";

/**
 * Tables written in the background, after commit, by what follows the event log (outbox
 * cursors and their leases, addon deliveries): they move because of earlier writes,
 * whatever the request in between did, so they say nothing about it.
 */
export const BACKGROUND_TABLES = ["outbox_cursors", "integration_events"];

/** A hash of every table's rows: two equal fingerprints mean nothing was written in between. */
export async function fingerprint(server: TestServer): Promise<Record<string, string>> {
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
  `.execute(server.db);
  const hashes: Record<string, string> = {};
  for (const { name } of tables.filter((table) => !BACKGROUND_TABLES.includes(table.name))) {
    const { rows } = await sql<{ hash: string | null }>`
      select md5(string_agg(t::text, '|' order by t::text)) as hash from ${sql.table(name)} t
    `.execute(server.db);
    hashes[name] = rows[0]?.hash ?? "";
  }
  return hashes;
}
