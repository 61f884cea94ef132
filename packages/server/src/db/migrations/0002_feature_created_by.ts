import { type Kysely, sql } from "kysely";

// Who created a flag, by name: tokens have no user id, and the Feature schema shows a creator.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table features add column created_by text`.execute(db);
}
