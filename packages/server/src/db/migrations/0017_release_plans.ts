import { type Kysely, sql } from "kysely";

// Release templates and the plans made from them on a flag's environment, one table for
// both as the reference keeps them (its `discriminator` tells them apart), their milestones
// with the strategies each serves, and safeguards. A plan belongs to its flag and
// environment and goes with them; a milestone's strategies are a copy, so that editing the
// template later changes no plan already made from it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table release_plan_definitions (
      id text primary key,
      discriminator text not null check (discriminator in ('template', 'plan')),
      name text not null,
      description text,
      feature_name text references features (name) on update cascade on delete cascade,
      environment text references environments (name) on update cascade on delete cascade,
      release_plan_template_id text,
      active_milestone_id text,
      created_by_user_id integer,
      created_at timestamptz not null default now(),
      archived_at timestamptz,
      check ((discriminator = 'plan') = (feature_name is not null and environment is not null))
    );
    -- One plan per flag environment, as in the reference.
    create unique index release_plans_one_per_environment on release_plan_definitions (feature_name, environment)
      where discriminator = 'plan';
    create table release_plan_milestones (
      id text primary key,
      release_plan_definition_id text not null references release_plan_definitions (id) on delete cascade,
      name text not null,
      sort_order integer not null,
      strategies jsonb not null default '[]',
      transition_condition jsonb,
      progression_target text,
      started_at timestamptz,
      paused_at timestamptz,
      progression_due_at timestamptz,
      progression_executed_at timestamptz
    );
    create index release_plan_milestones_definition on release_plan_milestones (release_plan_definition_id, sort_order);
    -- What the progression timer looks for: the soonest milestone due to hand over.
    create index release_plan_milestones_due on release_plan_milestones (progression_due_at)
      where progression_due_at is not null;
    create table safeguards (
      id text primary key,
      project text not null references projects (id) on update cascade on delete cascade,
      feature_name text not null references features (name) on update cascade on delete cascade,
      environment text not null references environments (name) on update cascade on delete cascade,
      release_plan_id text references release_plan_definitions (id) on delete cascade,
      action text not null,
      impact_metric jsonb not null,
      trigger_condition jsonb not null,
      triggered_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index safeguards_feature on safeguards (feature_name, environment);
  `.execute(db);
}
