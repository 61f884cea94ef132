import { sql } from "kysely";

/**
 * Whether the event row in scope (as `events`) names one of the projects, as its project or in
 * its data or preData (migration 0014), or names a flag that is in one of them now: what
 * leaves an event out for a reader from whom those projects are hidden.
 */
export const namesAnyOf = (projects: readonly string[]) => sql<boolean>`(
  events.named_projects && array[${sql.join(projects)}]::text[]
  or exists (
    select from features
    where features.name = any(events.named_flags) and features.project in (${sql.join(projects)})
  )
)`;
