/**
 * What happens to a change request, from its draft to its application, in the spec's order:
 * addons offer these together.
 */
export const CHANGE_REQUEST_EVENT_TYPES = [
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
] as const;

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
  ...CHANGE_REQUEST_EVENT_TYPES,
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
  // Signalbox's own: a flag brought back to an earlier version of itself (not in the reference).
  "feature-version-restored",
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
  "release-plan-template-created",
  "release-plan-template-updated",
  "release-plan-template-deleted",
  "release-plan-template-archived",
  "release-plan-added",
  "release-plan-removed",
  "release-plan-milestone-started",
  "milestone-progression-created",
  "milestone-progression-updated",
  "milestone-progression-deleted",
  "release-plan-progressions-paused",
  "release-plan-progressions-resumed",
  "safeguard-changed",
  "safeguard-deleted",
  "safeguard-triggered",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What each event Signalbox emits carries, as the reference fills it. Above the kernel, each
 * domain declares the events it records in its own `events.ts`, by augmenting this interface,
 * and the modules that record them import that file: the catalogue names no domain. A type
 * of the spec that nothing declares is one no operation emits yet; the compiler refuses to
 * record it.
 * Data and preData name projects in `project`, `projects`, `oldProject` or `newProject`, and
 * flags in `feature` or `features`, at their top level: the event log hides an event from
 * whoever may not see a project it names so (migration 0014), and by no other field.
 */
export interface EventShapes {
  // The kernel's own: the change gate records it.
  "change-request-configuration-updated": {
    data: { changeRequestsEnabled: boolean; requiredApprovals: number | null };
  };
}

/** Keeps the shapes to the list: a domain's shape for a type EVENT_TYPES lacks fails here. */
type Listed<T extends EventType> = T;

export type EmittedEventType = Listed<keyof EventShapes>;

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
