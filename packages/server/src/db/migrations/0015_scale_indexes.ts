import { type Kysely, sql } from "kysely";

// What the admin side reads at tens of thousands of flags. The event log is listed newest
// first by type or flag, a project's events by when they were written (its last change, a
// time window), and tags by value (which flags hold one); a child's parents are looked up
// by the child. Each was a scan of the whole table, or a sort of every match for a page.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index events_type_idx;
    drop index events_feature_idx;
    drop index events_project_idx;
    create index events_type_id on events (type, id);
    create index events_feature_id on events (feature_name, id);
    create index events_project_created on events (project, created_at);
    create index events_created on events (created_at);
    create index feature_tags_tag on feature_tags (tag_type, tag_value);
    create index feature_dependencies_child on feature_dependencies (child);
  `.execute(db);
}
