import { type Kysely, sql } from "kysely";

// Every project and flag an event names, wherever it names them, so that the event log can
// leave out, in SQL and so with right pages and totals, the events of projects hidden from a
// reader: the event's own project and flag, and what its data and preData name in the fields
// the catalogue uses for them (`project`, `projects`, `oldProject`, `newProject`; `feature`,
// `features`); a token's `*` (every project) and `[]` (several, listed in `projects`) name
// none. The database computes them, for the rows there now and every row written later.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function event_names(own text, data jsonb, pre_data jsonb, single text[], lists text[])
    returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(distinct name) filter (where name not in ('*', '[]')), '{}')
      from (
        select own as name
        union all
        select value ->> field
        from (values (data), (pre_data)) as side (value), unnest(single) as field
        where jsonb_typeof(value) = 'object' and jsonb_typeof(value -> field) = 'string'
        union all
        select jsonb_array_elements_text(value -> field)
        from (values (data), (pre_data)) as side (value), unnest(lists) as field
        where jsonb_typeof(value) = 'object' and jsonb_typeof(value -> field) = 'array'
      ) as named
    $$;
    alter table events
      add column named_projects text[] not null generated always as
        (event_names(project, data, pre_data, '{project,oldProject,newProject}', '{projects}')) stored,
      add column named_flags text[] not null generated always as
        (event_names(feature_name, data, pre_data, '{feature}', '{features}')) stored;
  `.execute(db);
}
