import { type Kysely, sql } from "kysely";

// The whole spine in one migration: later schema changes come as new numbered files,
// never as edits to this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table projects (
      id text primary key,
      name text not null,
      description text,
      mode text not null default 'open',
      default_stickiness text not null default 'default',
      feature_limit integer,
      feature_naming_pattern text,
      feature_naming_example text,
      feature_naming_description text,
      health integer not null default 100,
      created_at timestamptz not null default now(),
      updated_at timestamptz,
      archived_at timestamptz
    );

    create table environments (
      name text primary key,
      type text not null,
      sort_order integer not null default 0,
      enabled boolean not null default true,
      protected boolean not null default false,
      created_at timestamptz not null default now()
    );

    create table project_environments (
      project_id text not null references projects (id) on delete cascade,
      environment_name text not null references environments (name) on update cascade on delete cascade,
      default_strategy jsonb,
      primary key (project_id, environment_name)
    );

    create table features (
      name text primary key,
      project text not null references projects (id) on update cascade,
      type text not null default 'release',
      description text,
      stale boolean not null default false,
      potentially_stale boolean not null default false,
      impression_data boolean not null default false,
      created_at timestamptz not null default now(),
      created_by_user_id integer,
      archived_at timestamptz,
      last_seen_at timestamptz
    );
    create index features_project_idx on features (project);

    create table feature_environments (
      feature_name text not null references features (name) on update cascade on delete cascade,
      environment text not null references environments (name) on update cascade on delete cascade,
      enabled boolean not null default false,
      variants jsonb not null default '[]',
      last_seen_at timestamptz,
      primary key (feature_name, environment)
    );

    create table segments (
      id serial primary key,
      name text not null unique,
      description text,
      project text references projects (id) on delete cascade,
      constraints jsonb not null default '[]',
      created_by text,
      created_at timestamptz not null default now()
    );

    create table feature_strategies (
      id text primary key,
      feature_name text not null references features (name) on update cascade on delete cascade,
      project_name text not null,
      environment text not null references environments (name) on update cascade on delete cascade,
      strategy_name text not null,
      title text,
      disabled boolean not null default false,
      sort_order integer not null default 9999,
      parameters jsonb not null default '{}',
      constraints jsonb not null default '[]',
      variants jsonb not null default '[]',
      segments integer[] not null default '{}',
      created_at timestamptz not null default now()
    );
    create index feature_strategies_feature_env_idx on feature_strategies (feature_name, environment);

    create table tag_types (
      name text primary key,
      description text,
      icon text,
      created_at timestamptz not null default now()
    );

    create table feature_tags (
      feature_name text not null references features (name) on update cascade on delete cascade,
      tag_type text not null references tag_types (name) on update cascade on delete cascade,
      tag_value text not null,
      created_at timestamptz not null default now(),
      created_by_user_id integer,
      primary key (feature_name, tag_type, tag_value)
    );

    create table feature_dependencies (
      parent text not null references features (name) on update cascade on delete cascade,
      child text not null references features (name) on update cascade on delete cascade,
      enabled boolean not null default true,
      variants jsonb not null default '[]',
      primary key (parent, child)
    );

    create table context_fields (
      name text primary key,
      description text,
      stickiness boolean not null default false,
      sort_order integer not null default 10,
      legal_values jsonb not null default '[]',
      project text references projects (id) on delete cascade,
      created_at timestamptz not null default now()
    );

    create table strategy_definitions (
      name text primary key,
      title text,
      display_name text,
      description text,
      parameters jsonb not null default '[]',
      built_in boolean not null default false,
      deprecated boolean not null default false,
      sort_order integer not null default 9999,
      created_at timestamptz not null default now()
    );

    create table users (
      id serial primary key,
      name text,
      username text unique,
      email text unique,
      image_url text,
      root_role text not null default 'Viewer',
      created_at timestamptz not null default now()
    );

    create table api_tokens (
      id serial primary key,
      token_name text not null,
      type text not null,
      environment text not null,
      projects text[] not null,
      secret_hash text not null unique,
      display text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz,
      seen_at timestamptz
    );

    create table personal_access_tokens (
      id serial primary key,
      user_id integer not null references users (id) on delete cascade,
      description text not null,
      secret_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      seen_at timestamptz
    );

    create table events (
      id bigserial primary key,
      type text not null,
      created_at timestamptz not null default now(),
      created_by text not null,
      created_by_user_id integer,
      project text,
      environment text,
      feature_name text,
      data jsonb,
      pre_data jsonb,
      tags jsonb not null default '[]'
    );
    create index events_project_idx on events (project);
    create index events_feature_idx on events (feature_name);
    create index events_type_idx on events (type);

    create table client_applications (
      app_name text primary key,
      description text,
      url text,
      color text,
      icon text,
      strategies jsonb not null default '[]',
      sdk_version text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table client_instances (
      app_name text not null,
      instance_id text not null,
      environment text not null,
      sdk_version text,
      client_ip text,
      started timestamptz,
      interval integer,
      last_seen timestamptz not null default now(),
      primary key (app_name, instance_id, environment)
    );

    create table client_application_usage (
      app_name text not null references client_applications (app_name) on delete cascade,
      project text not null,
      environment text not null,
      primary key (app_name, project, environment)
    );

    create table client_metrics (
      feature_name text not null,
      app_name text not null,
      environment text not null,
      timestamp timestamptz not null,
      yes bigint not null default 0,
      no bigint not null default 0,
      variants jsonb not null default '{}',
      primary key (feature_name, app_name, environment, timestamp)
    );

    create table feature_lifecycles (
      feature text not null references features (name) on update cascade on delete cascade,
      stage text not null,
      status text,
      status_value text,
      created_at timestamptz not null default now(),
      primary key (feature, stage)
    );
  `.execute(db);

  await sql`
    insert into projects (id, name, description) values ('default', 'Default', 'Default project');
    insert into environments (name, type, sort_order) values
      ('development', 'development', 100),
      ('production', 'production', 200);
    insert into project_environments (project_id, environment_name) values
      ('default', 'development'),
      ('default', 'production');
    insert into tag_types (name, description, icon) values
      ('simple', 'Used to simplify filtering of features', '#');
    insert into context_fields (name, description, sort_order, stickiness) values
      ('environment', 'Allows you to constrain on application environment', 0, false),
      ('userId', 'Allows you to constrain on userId', 1, false),
      ('appName', 'Allows you to constrain on application name', 2, false),
      ('currentTime', 'Allows you to constrain on date values', 3, false),
      ('sessionId', 'Allows you to constrain on sessionId', 4, true),
      ('remoteAddress', 'Allows you to constrain on remote address', 5, false);
  `.execute(db);

  const list = (name: string, description: string) => ({ name, type: "list", description, required: false });
  const definitions = [
    {
      name: "flexibleRollout",
      title: "Gradual rollout",
      description: "Roll out to a percentage of your userbase, sticky by the chosen context field.",
      parameters: [
        { name: "rollout", type: "percentage", description: "", required: false },
        { name: "stickiness", type: "string", description: "Used to define stickiness", required: true },
        {
          name: "groupId",
          type: "string",
          description: "Used to define the activation groups",
          required: true,
        },
      ],
    },
    {
      name: "default",
      title: "Standard",
      description: "On for everyone in the environment.",
      parameters: [],
    },
    {
      name: "userWithId",
      title: "UserIDs",
      description: "On for the listed user ids.",
      parameters: [list("userIds", "")],
    },
    {
      name: "remoteAddress",
      title: "IPs",
      description: "On for the listed IP addresses and CIDR ranges.",
      parameters: [{ ...list("IPs", "List of IPs to enable the feature for"), required: true }],
    },
    {
      name: "applicationHostname",
      title: "Hosts",
      description: "On for the listed host names.",
      parameters: [list("hostNames", "List of hostnames to enable the feature for")],
    },
  ];
  for (const [index, definition] of definitions.entries()) {
    await sql`
      insert into strategy_definitions (name, title, display_name, description, parameters, built_in, sort_order)
      values (${definition.name}, ${definition.title}, ${definition.title}, ${definition.description},
              ${JSON.stringify(definition.parameters)}, true, ${index})
    `.execute(db);
  }
}
