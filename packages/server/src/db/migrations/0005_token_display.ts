import { type Kysely, sql } from "kysely";

// A token listing showed the scope and six characters of the random part: half of a short,
// human-chosen secret. Only the scope (`<project>:<environment>.`) is kept, which is no secret.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update api_tokens set display = substring(display from 1 for position('.' in display))`.execute(
    db,
  );
}
