import { type Kysely, sql } from "kysely";

// Change requests: a project's environments that require them, and the requests with their
// changes, reviews, comments and schedule. A request outlives the people on it (their
// columns become null), so that a deleted scheduler can be told apart and suspend it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table change_request_settings (
      project text not null references projects (id) on update cascade on delete cascade,
      environment text not null references environments (name) on update cascade on delete cascade,
      required_approvals integer not null check (required_approvals between 1 and 10),
      primary key (project, environment)
    );
    create table change_requests (
      id serial primary key,
      project text not null references projects (id) on update cascade on delete cascade,
      environment text not null,
      state text not null,
      title text,
      min_approvals integer not null,
      created_by integer references users (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    -- One draft per person, project and environment: where their next change goes.
    create unique index change_requests_one_draft on change_requests (project, environment, created_by)
      where state = 'Draft';
    create index change_requests_project on change_requests (project, state);
    create table change_request_changes (
      id serial primary key,
      change_request_id integer not null references change_requests (id) on delete cascade,
      feature text,
      action text not null,
      payload jsonb not null,
      snapshot jsonb,
      created_by integer references users (id) on delete set null,
      created_at timestamptz not null default now()
    );
    create index change_request_changes_request on change_request_changes (change_request_id);
    create table change_request_approvals (
      change_request_id integer not null references change_requests (id) on delete cascade,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (change_request_id, user_id)
    );
    create table change_request_rejections (
      change_request_id integer not null references change_requests (id) on delete cascade,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (change_request_id, user_id)
    );
    create table change_request_comments (
      id serial primary key,
      change_request_id integer not null references change_requests (id) on delete cascade,
      text text not null,
      created_by integer references users (id) on delete set null,
      created_at timestamptz not null default now()
    );
    create table change_request_reviewers (
      change_request_id integer not null references change_requests (id) on delete cascade,
      user_id integer not null references users (id) on delete cascade,
      primary key (change_request_id, user_id)
    );
    create table change_request_schedules (
      change_request_id integer primary key references change_requests (id) on delete cascade,
      scheduled_at timestamptz not null,
      created_by integer references users (id) on delete set null,
      status text not null,
      reason text
    );
    create index change_request_schedules_due on change_request_schedules (scheduled_at)
      where status = 'pending';
  `.execute(db);
}
