import { type Kysely, sql } from "kysely";

// People and what they may do. The predefined roles keep the reference's ids (Admin 1,
// Editor 2, Viewer 3, Owner 4, Member 5), so scripts that name roles by id work unchanged;
// their permissions live in code (access/roles.ts), custom roles' in role_permissions.
// The users table of 0001 was never written to, so it is reshaped in place.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table roles (
      id serial primary key,
      name text not null,
      description text not null default '',
      type text not null,
      created_at timestamptz not null default now()
    );
    create unique index roles_name on roles (lower(name));
    insert into roles (id, name, description, type) values
      (1, 'Admin', 'Users with the root role Admin have superuser access and may do anything.', 'root'),
      (2, 'Editor', 'Users with the root role Editor may create projects, manage shared configuration, and change flags in the default project.', 'root'),
      (3, 'Viewer', 'Users with the root role Viewer may read everything they can see, and change nothing.', 'root'),
      (4, 'Owner', 'Project owners hold every permission of their project and manage its members.', 'project'),
      (5, 'Member', 'Project members create and change the project''s flags in every environment.', 'project');
    select setval('roles_id_seq', 100);

    create table role_permissions (
      role_id integer not null references roles (id) on delete cascade,
      permission text not null,
      -- '' for a root or project permission; an environment's name for an environment permission.
      environment text not null default '',
      primary key (role_id, permission, environment)
    );

    alter table users drop column root_role;
    alter table users
      add column root_role_id integer not null default 3 references roles (id),
      add column password_hash text,
      add column is_service boolean not null default false,
      add column is_active boolean not null default true,
      add column seen_at timestamptz,
      add column updated_at timestamptz;
    create unique index users_email_lower on users (lower(email));
    create unique index users_username_lower on users (lower(username));

    create table groups (
      id serial primary key,
      name text not null,
      description text,
      root_role_id integer references roles (id),
      created_at timestamptz not null default now()
    );
    create unique index groups_name on groups (lower(name));

    create table group_users (
      group_id integer not null references groups (id) on delete cascade,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (group_id, user_id)
    );

    create table project_user_roles (
      project text not null references projects (id) on delete cascade,
      user_id integer not null references users (id) on delete cascade,
      role_id integer not null references roles (id),
      created_at timestamptz not null default now(),
      primary key (project, user_id, role_id)
    );
    create index project_user_roles_user on project_user_roles (user_id);

    create table project_group_roles (
      project text not null references projects (id) on delete cascade,
      group_id integer not null references groups (id) on delete cascade,
      role_id integer not null references roles (id),
      created_at timestamptz not null default now(),
      primary key (project, group_id, role_id)
    );

    -- A session's id is a bearer secret: only its SHA-256 is kept.
    create table sessions (
      id_hash text primary key,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );
    create index sessions_user on sessions (user_id);
    create index sessions_expiry on sessions (expires_at);

    create table password_reset_tokens (
      token_hash text primary key,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    );

    create unique index personal_access_tokens_description on personal_access_tokens (user_id, description);

    create table favorite_features (
      user_id integer not null references users (id) on delete cascade,
      feature text not null references features (name) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (user_id, feature)
    );

    create table favorite_projects (
      user_id integer not null references users (id) on delete cascade,
      project text not null references projects (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (user_id, project)
    );

    -- Settings of the ways to sign in (OpenID Connect), one JSON document each.
    create table auth_settings (
      name text primary key,
      content jsonb not null,
      updated_at timestamptz not null default now()
    );
  `.execute(db);
}
