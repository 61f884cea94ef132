import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";
import { ParentView } from "../features/dependencies/schemas.js";
import { StrategyView } from "../features/strategies/schemas.js";
import { StoredVariant } from "../features/variants/schemas.js";

export const VersionParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  eventId: Type.Integer({ minimum: 1 }),
});

export const VersionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  /** Versions to skip, newest first. */
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const PreviewQuery = Type.Object({
  environment: Type.Optional(
    Type.String({ minLength: 1, description: "Restore this environment only; left out, the whole flag." }),
  ),
});

export const RestoreBody = Type.Object({
  environment: Type.Optional(
    Type.String({ minLength: 1, description: "Restore this environment only; left out, the whole flag." }),
  ),
  changeRequest: Type.Optional(
    Type.Boolean({
      description:
        "Put the changes of environments that use change requests into the caller's draft there, instead of refusing them; the others are applied directly.",
    }),
  ),
});
export type RestoreBody = Static<typeof RestoreBody>;

const DateTime = Type.String({ format: "date-time" });

/** One change of a flag, as its events recorded it: a version is the state after the last. */
export const Version = Type.Object({
  eventId: Type.Integer({ description: "The version's id: its last event." }),
  type: Type.String({ description: "The type of that event." }),
  createdAt: DateTime,
  createdBy: Type.String(),
  environment: Nullable(Type.String({ description: "The environment it changed, if only one." })),
  events: Type.Array(
    Type.Object({ id: Type.Integer(), type: Type.String(), environment: Nullable(Type.String()) }),
    { description: "The flag's events the change recorded, in order." },
  ),
});
export type VersionView = Static<typeof Version>;

export const VersionList = Type.Object({ versions: Type.Array(Version), total: Type.Integer() });

const { featureName: _flag, ...strategyFields } = StrategyView.properties;

/** A strategy as a version has it; the id is the one it had then. */
export const StrategyState = Type.Object(strategyFields);

/** What a flag serves in an environment. */
export const EnvironmentState = Type.Object({
  enabled: Type.Boolean(),
  strategies: Type.Array(StrategyState),
  variants: Type.Array(StoredVariant),
});

/** The change-request actions a restore is made of, applied in this order. */
export const RESTORE_ACTIONS = [
  "updateEnabled",
  "addStrategy",
  "updateStrategy",
  "deleteStrategy",
  "reorderStrategy",
  "patchVariant",
  "addDependency",
  "deleteDependency",
] as const;
export type RestoreAction = (typeof RESTORE_ACTIONS)[number];

export const PlannedChange = Type.Object({
  action: Type.Enum(RESTORE_ACTIONS),
  environment: Nullable(Type.String({ description: "null: the flag's dependencies." })),
  description: Type.String(),
  payload: Type.Unknown({ description: "As a change request holds this action." }),
});
export type PlannedChange = Static<typeof PlannedChange>;

const Problem = Type.Object({ message: Type.String(), path: Type.Optional(Type.String()) });

const EnvironmentDiff = Type.Object({
  environment: Type.String(),
  current: EnvironmentState,
  restored: Nullable(EnvironmentState),
  changes: Type.Array(PlannedChange),
});

const DependencyDiff = Type.Object({
  current: Type.Array(ParentView),
  restored: Nullable(Type.Array(ParentView)),
  changes: Type.Array(PlannedChange),
});

const planFields = {
  feature: Type.String(),
  project: Type.String(),
  version: Version,
  environment: Nullable(Type.String({ description: "The environment restored; null: the whole flag." })),
  environments: Type.Array(EnvironmentDiff),
  dependencies: Nullable(DependencyDiff),
  changes: Type.Array(PlannedChange, { description: "Every change, in the order it is applied." }),
};

/** What restoring a version would change, and what stops it, if anything. */
export const RestorePlan = Type.Object({
  ...planFields,
  blockers: Type.Array(Problem, { description: "Why it cannot be restored; empty when it can." }),
});

export const RestoreResult = Type.Object({
  ...planFields,
  changeRequests: Type.Array(Type.Object({ environment: Type.String(), id: Type.Integer() }), {
    description: "The caller's drafts the changes of environments that use change requests went to.",
  }),
  restoredAs: Nullable(
    Type.Integer({ description: "The feature-version-restored event: a version itself." }),
  ),
});
