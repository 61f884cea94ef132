import type { ConstraintDefinition } from "@signalbox/engine";
import type { ColumnType, Generated } from "kysely";

/** A jsonb column: read as a value, written as JSON text (pg would turn arrays into PG arrays). */
export type Json<T> = ColumnType<T, string, string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** Constraints are stored in the shape SDKs read them. */
export type ConstraintRow = ConstraintDefinition;

export interface PayloadRow {
  type: string;
  value: string;
}

export interface VariantRow {
  name: string;
  weight: number;
  weightType?: string;
  stickiness?: string;
  payload?: PayloadRow;
  overrides?: { contextName: string; values: string[] }[];
}

export interface ProjectTable {
  id: string;
  name: string;
  description: string | null;
  mode: Generated<string>;
  default_stickiness: Generated<string>;
  feature_limit: number | null;
  feature_naming_pattern: string | null;
  feature_naming_example: string | null;
  feature_naming_description: string | null;
  health: Generated<number>;
  created_at: CreatedAt;
  updated_at: NullableTimestamp;
  archived_at: NullableTimestamp;
}

export interface EnvironmentTable {
  name: string;
  type: string;
  sort_order: Generated<number>;
  enabled: Generated<boolean>;
  protected: Generated<boolean>;
  created_at: CreatedAt;
}

export interface ProjectEnvironmentTable {
  project_id: string;
  environment_name: string;
  default_strategy: Json<Record<string, unknown> | null> | null;
}

export interface FeatureTable {
  name: string;
  project: string;
  type: Generated<string>;
  description: string | null;
  stale: Generated<boolean>;
  potentially_stale: Generated<boolean>;
  impression_data: Generated<boolean>;
  created_at: CreatedAt;
  created_by_user_id: number | null;
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  archived_at: NullableTimestamp;
  last_seen_at: NullableTimestamp;
}

export interface FeatureEnvironmentTable {
  feature_name: string;
  environment: string;
  enabled: Generated<boolean>;
  variants: ColumnType<VariantRow[], string | undefined, string>;
  last_seen_at: NullableTimestamp;
}

export interface FeatureStrategyTable {
  id: string;
  feature_name: string;
  project_name: string;
  environment: string;
  strategy_name: string;
  title: string | null;
  disabled: Generated<boolean>;
  sort_order: Generated<number>;
  parameters: ColumnType<Record<string, string>, string | undefined, string>;
  constraints: ColumnType<ConstraintRow[], string | undefined, string>;
  variants: ColumnType<VariantRow[], string | undefined, string>;
  segments: ColumnType<number[], number[] | undefined, number[]>;
  created_at: CreatedAt;
}

export interface FeatureTagTable {
  feature_name: string;
  tag_type: string;
  tag_value: string;
  created_at: CreatedAt;
  created_by_user_id: number | null;
}

export interface TagTypeTable {
  name: string;
  description: string | null;
  icon: string | null;
  created_at: CreatedAt;
}

export interface FeatureDependencyTable {
  parent: string;
  child: string;
  enabled: boolean;
  variants: ColumnType<string[], string | undefined, string>;
}

export interface SegmentTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  project: string | null;
  constraints: ColumnType<ConstraintRow[], string | undefined, string>;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface ContextFieldTable {
  name: string;
  description: string | null;
  stickiness: Generated<boolean>;
  sort_order: Generated<number>;
  legal_values: ColumnType<{ value: string; description?: string }[], string | undefined, string>;
  project: string | null;
  created_at: CreatedAt;
}

export interface StrategyDefinitionTable {
  name: string;
  title: string | null;
  display_name: string | null;
  description: string | null;
  parameters: ColumnType<
    { name: string; type: string; description: string; required: boolean }[],
    string | undefined,
    string
  >;
  built_in: Generated<boolean>;
  deprecated: Generated<boolean>;
  sort_order: Generated<number>;
  created_at: CreatedAt;
}

export interface ApiTokenTable {
  id: Generated<number>;
  token_name: string;
  type: string;
  environment: string;
  projects: ColumnType<string[], string[], string[]>;
  /** SHA-256 of the whole secret: the secret itself is never stored. */
  secret_hash: string;
  /** The non-secret start of the token (`project:env.` plus a few characters) for listings. */
  display: string;
  created_at: CreatedAt;
  expires_at: NullableTimestamp;
  seen_at: NullableTimestamp;
}

export interface PersonalAccessTokenTable {
  id: Generated<number>;
  user_id: number;
  description: string;
  secret_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  seen_at: NullableTimestamp;
}

export interface UserTable {
  id: Generated<number>;
  name: string | null;
  username: string | null;
  email: string | null;
  image_url: string | null;
  root_role_id: Generated<number>;
  /** scrypt, with its parameters and salt (see domains/users/passwords.ts); null: no local login. */
  password_hash: string | null;
  /** A service account: no password, acts through its tokens only. */
  is_service: Generated<boolean>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  seen_at: NullableTimestamp;
  updated_at: NullableTimestamp;
}

export interface RoleTable {
  id: Generated<number>;
  name: string;
  description: Generated<string>;
  /** root and project: predefined; root-custom and custom: made by an admin. */
  type: string;
  created_at: CreatedAt;
}

export interface RolePermissionTable {
  role_id: number;
  permission: string;
  /** '' unless the permission is an environment's. */
  environment: Generated<string>;
}

export interface GroupTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  root_role_id: number | null;
  created_at: CreatedAt;
}

export interface GroupUserTable {
  group_id: number;
  user_id: number;
  created_at: CreatedAt;
}

export interface ProjectUserRoleTable {
  project: string;
  user_id: number;
  role_id: number;
  created_at: CreatedAt;
}

export interface ProjectGroupRoleTable {
  project: string;
  group_id: number;
  role_id: number;
  created_at: CreatedAt;
}

export interface SessionTable {
  id_hash: string;
  user_id: number;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

export interface PasswordResetTokenTable {
  token_hash: string;
  user_id: number;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface FavoriteFeatureTable {
  user_id: number;
  feature: string;
  created_at: CreatedAt;
}

export interface FavoriteProjectTable {
  user_id: number;
  project: string;
  created_at: CreatedAt;
}

export interface AuthSettingsTable {
  name: string;
  content: Json<Record<string, unknown>>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface EventTable {
  id: Generated<number>;
  type: string;
  created_at: CreatedAt;
  created_by: string;
  created_by_user_id: number | null;
  project: string | null;
  environment: string | null;
  feature_name: string | null;
  data: Json<unknown> | null;
  pre_data: Json<unknown> | null;
  tags: ColumnType<{ type: string; value: string }[], string | undefined, string>;
  /** Every project the event names, in its columns, data and preData; computed by the database. */
  named_projects: ColumnType<string[], never, never>;
  /** Every flag the event names, likewise. */
  named_flags: ColumnType<string[], never, never>;
}

export interface ClientApplicationTable {
  app_name: string;
  description: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
  strategies: ColumnType<string[], string | undefined, string>;
  sdk_version: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientInstanceTable {
  app_name: string;
  instance_id: string;
  environment: string;
  sdk_version: string | null;
  client_ip: string | null;
  /** `frontend` for browser SDKs, `backend` for server SDKs; null for instances recorded before it was kept. */
  sdk_type: "frontend" | "backend" | null;
  started: NullableTimestamp;
  interval: number | null;
  last_seen: Timestamp;
}

export interface ClientApplicationUsageTable {
  app_name: string;
  project: string;
  environment: string;
}

export interface ClientMetricTable {
  feature_name: string;
  app_name: string;
  environment: string;
  /** The hour the counts belong to. */
  timestamp: Timestamp;
  yes: number;
  no: number;
  variants: ColumnType<Record<string, number>, string | undefined, string>;
}

export interface FeatureLifecycleTable {
  feature: string;
  stage: string;
  status: string | null;
  status_value: string | null;
  created_at: CreatedAt;
}

export interface RevisionTable {
  id: Generated<boolean>;
  value: number;
}

export interface OutboxCursorTable {
  consumer: string;
  position: number;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  holder: string | null;
  held_until: NullableTimestamp;
}

export interface ChangeRequestSettingsTable {
  project: string;
  environment: string;
  required_approvals: number;
}

export interface ChangeRequestTable {
  id: Generated<number>;
  project: string;
  environment: string;
  state: string;
  title: string | null;
  min_approvals: number;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ChangeRequestChangeTable {
  id: Generated<number>;
  change_request_id: number;
  feature: string | null;
  action: string;
  payload: Json<unknown>;
  /** The target as it was when the change was made: what conflicts are found against. */
  snapshot: Json<unknown> | null;
  /** What the change refers to besides its target, as it was when the change was made. */
  refs: Json<unknown> | null;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Approvals and rejections: one per person and request. */
export interface ChangeRequestReviewTable {
  change_request_id: number;
  user_id: number;
  created_at: CreatedAt;
}

export interface ChangeRequestCommentTable {
  id: Generated<number>;
  change_request_id: number;
  text: string;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface ChangeRequestReviewerTable {
  change_request_id: number;
  user_id: number;
}

export interface ChangeRequestScheduleTable {
  change_request_id: number;
  scheduled_at: Timestamp;
  created_by: number | null;
  status: string;
  reason: string | null;
}

/** Parameter values are strings, numbers or booleans, as the reference accepts them. */
export type AddonParameters = Record<string, string | number | boolean>;

export interface AddonTable {
  id: Generated<number>;
  provider: string;
  description: string | null;
  enabled: boolean;
  parameters: Json<AddonParameters>;
  events: Json<string[]>;
  projects: Json<string[]>;
  environments: Json<string[]>;
  created_at: CreatedAt;
}

export interface IntegrationEventTable {
  /** A bigint, which pg reads as a number (db/connection.ts); the API shows it as text. */
  id: Generated<number>;
  integration_id: number;
  created_at: CreatedAt;
  state: string;
  state_details: string;
  event: Json<unknown>;
  details: Json<Record<string, unknown>>;
  attempts: Json<unknown[]>;
}

/** A strategy as a release milestone holds it: the flag's strategy shape, with its own id and place. */
export interface MilestoneStrategyRow {
  id: string;
  name: string;
  title: string | null;
  disabled: boolean;
  sortOrder: number;
  parameters: Record<string, string>;
  constraints: ConstraintRow[];
  variants: VariantRow[];
  segments: number[];
}

export interface ReleasePlanDefinitionTable {
  id: string;
  discriminator: "template" | "plan";
  name: string;
  description: string | null;
  feature_name: string | null;
  environment: string | null;
  release_plan_template_id: string | null;
  active_milestone_id: string | null;
  created_by_user_id: number | null;
  created_at: CreatedAt;
  archived_at: NullableTimestamp;
}

export interface ReleasePlanMilestoneTable {
  id: string;
  release_plan_definition_id: string;
  name: string;
  sort_order: number;
  strategies: Json<MilestoneStrategyRow[]>;
  transition_condition: Json<{ intervalMinutes: number } | null>;
  progression_target: string | null;
  started_at: NullableTimestamp;
  paused_at: NullableTimestamp;
  progression_due_at: NullableTimestamp;
  progression_executed_at: NullableTimestamp;
}

export interface SafeguardTable {
  id: string;
  project: string;
  feature_name: string;
  environment: string;
  release_plan_id: string | null;
  action: string;
  impact_metric: Json<SafeguardMetricRow>;
  trigger_condition: Json<{ operator: ">" | "<"; threshold: number }>;
  triggered_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface SafeguardMetricRow {
  id: string;
  metricName: string;
  timeRange: "hour" | "day" | "week" | "month";
  aggregationMode: "rps" | "count" | "avg" | "sum" | "p50" | "p95" | "p99";
  labelSelectors: Record<string, string[]>;
  source?: "internal" | "external";
}

export interface ImpactMetricSeriesTable {
  id: Generated<number>;
  name: string;
  type: "counter" | "gauge" | "histogram";
  help: string;
  labels: Json<Record<string, string>>;
  /** The labels in one canonical text (sorted pairs): how a series is known. */
  labels_key: string;
  created_at: CreatedAt;
}

export interface ImpactMetricPointTable {
  series_id: number;
  /** The start of the window the point covers (IMPACT_METRICS_RESOLUTION_SECONDS wide). */
  bucket: Timestamp;
  /** A counter's increase over the window, or a gauge's last value in it. */
  value: number;
  /** A histogram's observations, their sum, and its buckets' counts by upper bound, over the window. */
  count: number | null;
  sum: number | null;
  buckets: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
}

export interface ImpactMetricConfigTable {
  id: string;
  feature_name: string;
  metric_name: string;
  time_range: string;
  aggregation_mode: string;
  label_selectors: Json<Record<string, string[]>>;
  y_axis_min: string;
  title: string | null;
  created_at: CreatedAt;
}

export interface Database {
  projects: ProjectTable;
  environments: EnvironmentTable;
  project_environments: ProjectEnvironmentTable;
  features: FeatureTable;
  feature_environments: FeatureEnvironmentTable;
  feature_strategies: FeatureStrategyTable;
  feature_tags: FeatureTagTable;
  tag_types: TagTypeTable;
  feature_dependencies: FeatureDependencyTable;
  segments: SegmentTable;
  context_fields: ContextFieldTable;
  strategy_definitions: StrategyDefinitionTable;
  api_tokens: ApiTokenTable;
  personal_access_tokens: PersonalAccessTokenTable;
  users: UserTable;
  roles: RoleTable;
  role_permissions: RolePermissionTable;
  groups: GroupTable;
  group_users: GroupUserTable;
  project_user_roles: ProjectUserRoleTable;
  project_group_roles: ProjectGroupRoleTable;
  sessions: SessionTable;
  password_reset_tokens: PasswordResetTokenTable;
  favorite_features: FavoriteFeatureTable;
  favorite_projects: FavoriteProjectTable;
  auth_settings: AuthSettingsTable;
  events: EventTable;
  revision: RevisionTable;
  outbox_cursors: OutboxCursorTable;
  client_applications: ClientApplicationTable;
  client_instances: ClientInstanceTable;
  client_application_usage: ClientApplicationUsageTable;
  client_metrics: ClientMetricTable;
  feature_lifecycles: FeatureLifecycleTable;
  change_request_settings: ChangeRequestSettingsTable;
  change_requests: ChangeRequestTable;
  change_request_changes: ChangeRequestChangeTable;
  change_request_approvals: ChangeRequestReviewTable;
  change_request_rejections: ChangeRequestReviewTable;
  change_request_comments: ChangeRequestCommentTable;
  change_request_reviewers: ChangeRequestReviewerTable;
  change_request_schedules: ChangeRequestScheduleTable;
  addons: AddonTable;
  integration_events: IntegrationEventTable;
  impact_metric_series: ImpactMetricSeriesTable;
  impact_metric_points: ImpactMetricPointTable;
  impact_metric_configs: ImpactMetricConfigTable;
  release_plan_definitions: ReleasePlanDefinitionTable;
  release_plan_milestones: ReleasePlanMilestoneTable;
  safeguards: SafeguardTable;
}
