import type { ContextFieldView } from "../context-fields/schemas.js";
import type { EnvironmentView } from "../environments/schemas.js";
import type { FeatureView } from "../features/flags/schemas.js";
import type { StrategyInput, StrategyView } from "../features/strategies/schemas.js";
import type { ProjectSettings } from "../projects/service.js";
import type { SegmentView } from "../segments/schemas.js";
import type { StrategyDefinitionView } from "../strategy-definitions/schemas.js";
import type { TagTypeView } from "../tag-types/schemas.js";
import type { TokenView } from "../tokens/schemas.js";

/** Every event type the spec names, as a filter and as the `type` of a stored event. */
export const EVENT_TYPES = [
  "application-created",
  "feature-created",
  "feature-deleted",
  "feature-updated",
  "feature-metadata-updated",
  "feature-variants-updated",
  "feature-environment-variants-updated",
  "feature-project-change",
  "feature-archived",
  "feature-revived",
  "feature-import",
  "feature-tagged",
  "feature-tag-import",
  "feature-strategy-update",
  "feature-strategy-add",
  "feature-strategy-remove",
  "feature-type-updated",
  "feature-completed",
  "feature-uncompleted",
  "strategy-order-changed",
  "drop-feature-tags",
  "feature-untagged",
  "feature-stale-on",
  "feature-stale-off",
  "drop-features",
  "feature-environment-enabled",
  "feature-environment-disabled",
  "strategy-created",
  "strategy-deleted",
  "strategy-deprecated",
  "strategy-reactivated",
  "strategy-updated",
  "strategy-import",
  "drop-strategies",
  "context-field-created",
  "context-field-updated",
  "context-field-deleted",
  "project-access-added",
  "project-access-user-roles-updated",
  "project-access-group-roles-updated",
  "project-access-user-roles-deleted",
  "project-access-group-roles-deleted",
  "project-access-updated",
  "project-created",
  "project-updated",
  "project-deleted",
  "project-archived",
  "project-revived",
  "project-import",
  "project-user-added",
  "project-user-removed",
  "project-user-role-changed",
  "project-group-role-changed",
  "project-group-added",
  "project-group-removed",
  "role-created",
  "role-updated",
  "role-deleted",
  "drop-projects",
  "tag-created",
  "tag-deleted",
  "tag-import",
  "drop-tags",
  "tag-type-created",
  "tag-type-deleted",
  "tag-type-updated",
  "tag-type-import",
  "drop-tag-types",
  "addon-config-created",
  "addon-config-updated",
  "addon-config-deleted",
  "db-pool-update",
  "user-created",
  "user-updated",
  "user-deleted",
  "drop-environments",
  "environment-import",
  "environment-created",
  "environment-updated",
  "environment-deleted",
  "segment-created",
  "segment-updated",
  "segment-deleted",
  "group-created",
  "group-updated",
  "group-deleted",
  "group-user-added",
  "group-user-removed",
  "setting-created",
  "setting-updated",
  "setting-deleted",
  "client-metrics",
  "client-register",
  "pat-created",
  "pat-deleted",
  "public-signup-token-created",
  "public-signup-token-user-added",
  "public-signup-token-updated",
  "change-request-created",
  "change-request-discarded",
  "change-added",
  "change-discarded",
  "change-edited",
  "change-request-rejected",
  "change-request-approved",
  "change-request-approval-added",
  "change-request-cancelled",
  "change-request-sent-to-review",
  "change-request-schedule-suspended",
  "change-request-applied",
  "change-request-scheduled",
  "change-request-scheduled-application-success",
  "change-request-scheduled-application-failure",
  "change-request-configuration-updated",
  "api-token-created",
  "api-token-updated",
  "api-token-deleted",
  "feature-favorited",
  "feature-unfavorited",
  "project-favorited",
  "project-unfavorited",
  "features-exported",
  "features-imported",
  "service-account-created",
  "service-account-deleted",
  "service-account-updated",
  "feature-potentially-stale-on",
  "feature-dependency-added",
  "feature-dependency-removed",
  "feature-dependencies-removed",
  "banner-created",
  "banner-updated",
  "banner-deleted",
  "project-environment-added",
  "project-environment-removed",
  "default-strategy-updated",
  "segment-import",
  "signal-endpoint-created",
  "signal-endpoint-updated",
  "signal-endpoint-deleted",
  "signal-endpoint-token-created",
  "signal-endpoint-token-updated",
  "signal-endpoint-token-deleted",
  "actions-created",
  "actions-updated",
  "actions-deleted",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** A person or service account as user events carry it: never a password or its hash. */
export interface UserEventData {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  rootRole: number;
  isActive?: boolean;
}

export interface RoleEventData {
  id: number;
  name: string;
  description: string;
  type: string;
  permissions?: { name: string; environment?: string }[];
}

export interface GroupEventData {
  id: number;
  name: string;
  description: string | null;
  rootRole: number | null;
  users: { id: number }[];
}

/** Who was given which project roles. */
export interface ProjectAccessData {
  roles: number[];
  users?: number[];
  groups?: number[];
  userId?: number;
  groupId?: number;
}

/** The whole of a project's access: who holds each role, as setting it all at once records it. */
export interface ProjectAccessConfigurationData {
  roles: { id: number; users: number[]; groups: number[] }[];
}

/** An addon as its events carry it: without its parameters, which may hold secrets. */
export interface AddonEventData {
  id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  events: string[];
  projects: string[];
  environments: string[];
}

export interface PersonalTokenEventData {
  id: number;
  description: string;
  expiresAt: string;
  userId: number;
}

interface ChangeRequestData {
  changeRequestId: number;
}

interface ChangeData extends ChangeRequestData {
  change: { id: number; action: string; payload: unknown };
}

interface Variant {
  name: string;
  weight: number;
  weightType?: string;
  stickiness?: string;
  payload?: { type: string; value: string };
}

/**
 * What each event Signalbox emits carries, as the reference fills it. A type of the spec
 * missing here is one no operation emits yet; the compiler refuses to record it.
 * Data and preData name projects in `project`, `projects`, `oldProject` or `newProject`, and
 * flags in `feature` or `features`, at their top level: the event log hides an event from
 * whoever may not see a project it names so (migration 0014), and by no other field.
 */
export interface EventShapes {
  "application-created": { data: { appName: string; sdkVersion: string | null; clientIp: string } };
  "feature-created": { data: FeatureView };
  "feature-metadata-updated": { data: FeatureView; preData: FeatureView };
  "feature-stale-on": { data: { stale: true } };
  "feature-stale-off": { data: { stale: false } };
  "feature-potentially-stale-on": Record<never, never>;
  "feature-archived": Record<never, never>;
  "feature-revived": Record<never, never>;
  "feature-deleted": { preData?: FeatureView };
  "feature-project-change": { data: { oldProject: string; newProject: string } };
  "feature-environment-enabled": Record<never, never>;
  "feature-environment-disabled": Record<never, never>;
  "feature-strategy-add": { data: StrategyView };
  "feature-strategy-update": { data: StrategyView; preData: StrategyView };
  "feature-strategy-remove": { preData: StrategyView };
  "strategy-order-changed": { data: { id: string; sortOrder: number }[] };
  "feature-variants-updated": { data: { variants: Variant[] }; preData: { variants: Variant[] } };
  "feature-environment-variants-updated": { data: { variants: Variant[] }; preData: { variants: Variant[] } };
  "feature-tagged": { data: { type: string; value: string } };
  "feature-untagged": { preData: { type: string; value: string } };
  "tag-created": { data: { type: string; value: string } };
  "feature-completed": { data: { status: string; statusValue?: string | null; kept: boolean } };
  "feature-uncompleted": Record<never, never>;
  "feature-dependency-added": { data: { feature: string; enabled: boolean; variants?: string[] } };
  "feature-dependency-removed": { data: { feature: string } };
  "feature-dependencies-removed": Record<never, never>;
  "project-created": { data: ProjectSettings };
  "project-updated": { data: ProjectSettings; preData: ProjectSettings };
  "project-archived": { preData: ProjectSettings };
  "project-revived": { preData: ProjectSettings };
  "project-deleted": { preData: ProjectSettings };
  "project-environment-added": { data: { environment: string } };
  "project-environment-removed": { preData: { environment: string } };
  "default-strategy-updated": { data: StrategyInput; preData?: StrategyInput };
  "environment-created": { data: EnvironmentView };
  "environment-updated": { data: EnvironmentView; preData: EnvironmentView };
  "environment-deleted": { preData: EnvironmentView };
  "segment-created": { data: SegmentView };
  "segment-updated": { data: SegmentView; preData: SegmentView };
  "segment-deleted": { preData: SegmentView };
  "context-field-created": { data: ContextFieldView };
  "context-field-updated": { data: ContextFieldView; preData: ContextFieldView };
  "context-field-deleted": { preData: ContextFieldView };
  "tag-type-created": { data: TagTypeView };
  "tag-type-updated": { data: TagTypeView; preData: TagTypeView };
  "tag-type-deleted": { preData: TagTypeView };
  "strategy-created": { data: StrategyDefinitionView };
  "strategy-updated": { data: StrategyDefinitionView; preData: StrategyDefinitionView };
  "strategy-deleted": { preData: StrategyDefinitionView };
  "strategy-deprecated": { data: { name: string } };
  "strategy-reactivated": { data: { name: string } };
  "api-token-created": { data: TokenView };
  "api-token-updated": { data: TokenView; preData: TokenView };
  "api-token-deleted": { preData: TokenView };
  "user-created": { data: UserEventData };
  "user-updated": { data: UserEventData; preData: UserEventData };
  "user-deleted": { preData: UserEventData };
  "service-account-created": { data: UserEventData };
  "service-account-updated": { data: UserEventData; preData: UserEventData };
  "service-account-deleted": { preData: UserEventData };
  "role-created": { data: RoleEventData };
  "role-updated": { data: RoleEventData; preData: RoleEventData };
  "role-deleted": { preData: RoleEventData };
  "group-created": { data: GroupEventData };
  "group-updated": { data: GroupEventData; preData: GroupEventData };
  "group-deleted": { preData: GroupEventData };
  "group-user-added": { data: { groupId: number; userId: number } };
  "group-user-removed": { preData: { groupId: number; userId: number } };
  "project-access-added": { data: ProjectAccessData };
  "project-access-user-roles-updated": { data: ProjectAccessData; preData: ProjectAccessData };
  "project-access-group-roles-updated": { data: ProjectAccessData; preData: ProjectAccessData };
  "project-access-user-roles-deleted": { preData: ProjectAccessData };
  "project-access-group-roles-deleted": { preData: ProjectAccessData };
  "project-access-updated": {
    data: ProjectAccessConfigurationData;
    preData: ProjectAccessConfigurationData;
  };
  "project-user-added": { data: { userId: number; roleId: number } };
  "project-user-removed": { preData: { userId: number; roleId: number } };
  "project-user-role-changed": {
    data: { userId: number; roleId: number };
    preData: { userId: number; roleId: number };
  };
  "project-group-added": { data: { groupId: number; roleId: number } };
  "project-group-removed": { preData: { groupId: number; roleId: number } };
  "project-group-role-changed": {
    data: { groupId: number; roleId: number };
    preData: { groupId: number; roleId: number };
  };
  "addon-config-created": { data: AddonEventData };
  "addon-config-updated": { data: AddonEventData; preData: AddonEventData };
  "addon-config-deleted": { preData: AddonEventData };
  "pat-created": { data: PersonalTokenEventData };
  "pat-deleted": { preData: PersonalTokenEventData };
  "feature-favorited": { data: { feature: string } };
  "feature-unfavorited": { data: { feature: string } };
  "project-favorited": { data: { project: string } };
  "project-unfavorited": { data: { project: string } };
  "change-request-configuration-updated": {
    data: { changeRequestsEnabled: boolean; requiredApprovals: number | null };
  };
  "change-request-created": { data: ChangeRequestData };
  "change-added": { data: ChangeData };
  "change-edited": { data: ChangeData };
  "change-discarded": { data: ChangeRequestData & { changeId: number; action: string } };
  "change-request-discarded": { data: ChangeRequestData };
  "change-request-sent-to-review": { data: ChangeRequestData & { title: string } };
  "change-request-approval-added": { data: ChangeRequestData & { approvals: number; minApprovals: number } };
  "change-request-approved": { data: ChangeRequestData };
  "change-request-rejected": { data: ChangeRequestData };
  "change-request-cancelled": { data: ChangeRequestData };
  "change-request-applied": { data: ChangeRequestData };
  "change-request-scheduled": { data: ChangeRequestData & { scheduledAt: string } };
  "change-request-schedule-suspended": { data: ChangeRequestData & { reason: string } };
  "change-request-scheduled-application-success": { data: ChangeRequestData };
  "change-request-scheduled-application-failure": { data: ChangeRequestData & { reason: string } };
  // Settings that hold secrets (sign-in settings) say which changed, never how, as the reference's do.
  "setting-created": { data: { id: string; hideEventDetails: true } };
  "setting-updated": { data: { id: string; hideEventDetails: true }; preData: { hideEventDetails: true } };
  "features-exported": { data: { environment: string; features: string[] } };
  "features-imported": Record<never, never>;
}

export type EmittedEventType = keyof EventShapes & EventType;

/** Where an event happened: what addons filter on and the event search finds it by. */
export interface EventSubject {
  project?: string | null;
  environment?: string | null;
  featureName?: string | null;
  tags?: { type: string; value: string }[];
}

/** An event as a service records it; who acted comes from the transaction's actor. */
export type EventInput = {
  [T in EmittedEventType]: { type: T } & EventSubject & EventShapes[T];
}[EmittedEventType];
