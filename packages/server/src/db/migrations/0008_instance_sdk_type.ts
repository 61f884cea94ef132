import { type Kysely, sql } from "kysely";

// An application's overview tells browser SDKs (reporting through the frontend API) from
// server SDKs, so each instance keeps which API it came through; instances heard from
// before this are of neither kind. The application pages read usage by application, which
// the primary key (flag first) does not serve.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table client_instances add column sdk_type text;
    create index client_metrics_app_idx on client_metrics (app_name, timestamp);
  `.execute(db);
}
