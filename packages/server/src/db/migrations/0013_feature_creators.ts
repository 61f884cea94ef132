import { type Kysely, sql } from "kysely";

// Flags were created without their creator's user id, which `createdBy` shows and the
// feature search filters on: each gets the one its latest feature-created event recorded
// (a person's id, or the reference's marks for admin tokens and the system).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update features f
    set created_by_user_id = created.created_by_user_id
    from (
      select distinct on (feature_name) feature_name, created_by_user_id
      from events
      where type = 'feature-created' and feature_name is not null and created_by_user_id is not null
      order by feature_name, id desc
    ) created
    where f.name = created.feature_name and f.created_by_user_id is null
  `.execute(db);
}
