import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";

export const STATES = [
  "Draft",
  "In review",
  "Approved",
  "Applied",
  "Cancelled",
  "Rejected",
  "Scheduled",
] as const;
export type State = (typeof STATES)[number];
/** The states a request can still move from. */
export const OPEN_STATES: readonly State[] = ["Draft", "In review", "Approved", "Scheduled"];
export const CLOSED_STATES: readonly State[] = ["Applied", "Cancelled", "Rejected"];

/** The reference's action names for what a change request can hold. */
export const ACTIONS = [
  "updateEnabled",
  "addStrategy",
  "updateStrategy",
  "deleteStrategy",
  "reorderStrategy",
  "patchVariant",
  "archiveFeature",
  "addDependency",
  "deleteDependency",
  "updateSegment",
  "deleteSegment",
  "addReleasePlan",
  "deleteReleasePlan",
  "startMilestone",
  "changeMilestoneProgression",
  "deleteMilestoneProgression",
  "resumeMilestoneProgression",
  "changeReleasePlanSafeguard",
  "deleteReleasePlanSafeguard",
  "changeFeatureEnvSafeguard",
  "deleteFeatureEnvSafeguard",
] as const;
export type Action = (typeof ACTIONS)[number];

export const ProjectParams = Type.Object({ projectId: Type.String() });
export const EnvironmentParams = Type.Object({ projectId: Type.String(), environment: Type.String() });
export const RequestParams = Type.Object({ projectId: Type.String(), id: Type.Integer({ minimum: 1 }) });
export const ChangeParams = Type.Object({
  projectId: Type.String(),
  id: Type.Integer({ minimum: 1 }),
  changeId: Type.Integer({ minimum: 1 }),
});

export const ConfigBody = Type.Object({
  changeRequestsEnabled: Type.Boolean(),
  requiredApprovals: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
});
export type ConfigInput = Static<typeof ConfigBody>;

export const EnvironmentConfig = Type.Object({
  environment: Type.String(),
  type: Type.String(),
  changeRequestEnabled: Type.Boolean(),
  requiredApprovals: Nullable(Type.Integer()),
});
export type EnvironmentConfigView = Static<typeof EnvironmentConfig>;

/** One change as sent: a flag's (or, for segment actions, none) and what to do to it. */
export const ChangeInput = Type.Object({
  feature: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  action: Type.Enum(ACTIONS),
  payload: Type.Optional(Type.Unknown()),
});
export type ChangeInput = Static<typeof ChangeInput>;
export const ChangesBody = Type.Union([ChangeInput, Type.Array(ChangeInput, { minItems: 1, maxItems: 100 })]);

export const StateBody = Type.Object({
  state: Type.Enum(STATES),
  comment: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
  scheduledAt: Type.Optional(Type.String({ format: "date-time" })),
});
export type StateInput = Static<typeof StateBody>;

export const TitleBody = Type.Object({ title: Type.String({ minLength: 1, maxLength: 255 }) });
export const CommentBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) });
export const ReviewersBody = Type.Object({
  reviewers: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100 }),
});

export const AvailableReviewers = Type.Object({
  reviewers: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      username: Type.Optional(Type.String()),
      imageUrl: Type.Optional(Type.String()),
    }),
  ),
});
export type AvailableReviewersView = Static<typeof AvailableReviewers>;

const Author = Type.Object({ username: Nullable(Type.String()), imageUrl: Nullable(Type.String()) });
const Person = Type.Object({
  id: Type.Integer(),
  username: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
});

const ChangeFields = {
  id: Type.Integer(),
  action: Type.String(),
  conflict: Type.Optional(Type.String()),
  payload: Type.Unknown(),
  createdBy: Author,
  createdAt: Type.String({ format: "date-time" }),
};
export const Change = Type.Object(ChangeFields);
export type ChangeView = Static<typeof Change>;

export const Review = Type.Object({ createdBy: Person, createdAt: Type.String({ format: "date-time" }) });

export const Schedule = Type.Object({
  scheduledAt: Type.String({ format: "date-time" }),
  status: Type.Enum(["pending", "failed", "suspended"]),
  reason: Type.Optional(Type.String()),
  failureReason: Type.Optional(Nullable(Type.String())),
});

/** The spec's change request entity. */
export const ChangeRequest = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  environment: Type.String(),
  minApprovals: Type.Integer(),
  project: Type.String(),
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      conflict: Type.Optional(Type.String()),
      changes: Type.Array(Change),
      defaultChange: Type.Optional(Type.Object({ action: Type.String(), payload: Type.Unknown() })),
    }),
  ),
  segments: Type.Array(Type.Object({ ...ChangeFields, name: Type.String() })),
  approvals: Type.Array(Review),
  rejections: Type.Array(Review),
  comments: Type.Array(
    Type.Object({
      id: Type.Integer(),
      text: Type.String(),
      createdBy: Author,
      createdAt: Type.String({ format: "date-time" }),
    }),
  ),
  /** The people asked to review it. */
  reviewers: Type.Array(Person),
  createdBy: Type.Object({ id: Nullable(Type.Integer()), ...Author.properties }),
  createdAt: Type.String({ format: "date-time" }),
  state: Type.Enum(STATES),
  schedule: Type.Optional(Schedule),
});
export type ChangeRequestView = Static<typeof ChangeRequest>;

export const SearchQuery = Type.Object({
  project: Type.Optional(Type.String()),
  createdBy: Type.Optional(Type.Integer()),
  requestedApproverId: Type.Optional(Type.Integer()),
  state: Type.Optional(Type.Enum(["open", "closed"])),
  /** Only requests in review that the caller may approve, did not write and has not reviewed yet. */
  awaitingMyReview: Type.Optional(Type.Boolean()),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
});
export type SearchInput = Static<typeof SearchQuery>;

export const SearchResult = Type.Object({
  changeRequests: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      project: Type.String(),
      environment: Type.String(),
      state: Type.Enum(STATES),
      createdBy: Type.Object({ id: Nullable(Type.Integer()), ...Author.properties }),
      createdAt: Type.String({ format: "date-time" }),
      features: Type.Array(Type.String()),
      segments: Type.Array(Type.String()),
      approvals: Type.Integer(),
      minApprovals: Type.Integer(),
      schedule: Type.Optional(Schedule),
    }),
  ),
  total: Type.Integer(),
});
export type SearchResultView = Static<typeof SearchResult>;
