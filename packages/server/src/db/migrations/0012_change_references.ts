import type { Kysely } from "kysely";

// What a drafted change refers to besides its target (the segments a strategy names, the
// strategies a flag is switched on with, a dependency's parent), as it was when drafted:
// applying compares it with what is there then, so a review approves exactly what is applied.
// Changes drafted before this column have none, and are checked against their target only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("change_request_changes").addColumn("refs", "jsonb").execute();
}
