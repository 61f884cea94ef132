import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../shared/schemas.js";
import { Strategy } from "../../shared/strategy.js";

const Mode = Type.Enum(["open", "protected", "private"]);
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.Optional(Nullable(Type.String()));
const Stickiness = Type.Optional(Type.String({ minLength: 1, maxLength: 100 }));
const NullableText = Nullable(Type.String({ minLength: 1 }));

export const NewProject = Type.Object({
  id: urlSafeName(),
  name: Name,
  description: Description,
  mode: Type.Optional(Mode),
  defaultStickiness: Stickiness,
  environments: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
});
export type NewProject = Static<typeof NewProject>;

export const ProjectUpdate = Type.Object({
  name: Name,
  description: Description,
  mode: Type.Optional(Mode),
  defaultStickiness: Stickiness,
  featureLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
});
export type ProjectUpdate = Static<typeof ProjectUpdate>;

/** Endpoint 12: fields left out keep their value. */
export const Settings = Type.Object({
  mode: Type.Optional(Mode),
  featureNaming: Type.Optional(
    Type.Object({
      pattern: NullableText,
      example: Type.Optional(NullableText),
      description: Type.Optional(NullableText),
    }),
  ),
});
export type Settings = Static<typeof Settings>;

export const ListQuery = Type.Object({ archived: Type.Optional(Type.Boolean()) });
export const ProjectId = Type.Object({ projectId: Type.String() });
export const ProjectEnvironment = Type.Object({ projectId: Type.String(), environment: Type.String() });
export const EnvironmentBody = Type.Object({ environment: Type.String({ minLength: 1 }) });

const DateTime = Type.String({ format: "date-time" });
const NullableDateTime = Nullable(DateTime);

/** A user or group holding the Owner role, or the system when none does. */
export const ProjectOwner = Type.Union([
  Type.Object({
    ownerType: Type.Literal("user"),
    name: Type.String(),
    imageUrl: Nullable(Type.String()),
    email: Nullable(Type.String()),
  }),
  Type.Object({ ownerType: Type.Literal("group"), name: Type.String() }),
  Type.Object({ ownerType: Type.Literal("system") }),
]);
export type ProjectOwner = Static<typeof ProjectOwner>;

const summaryFields = {
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  health: Type.Integer(),
  featureCount: Type.Integer(),
  staleFeatureCount: Type.Integer(),
  potentiallyStaleFeatureCount: Type.Integer(),
  memberCount: Type.Integer(),
  createdAt: DateTime,
  updatedAt: NullableDateTime,
  lastUpdatedAt: NullableDateTime,
  archivedAt: NullableDateTime,
  favorite: Type.Boolean(),
  mode: Type.String(),
  defaultStickiness: Type.String(),
  avgTimeToProduction: Type.Number(),
  lastReportedFlagUsage: NullableDateTime,
  owners: Type.Array(ProjectOwner),
};

/** A project as the listing (endpoint 7) shows it. */
export const ProjectSummary = Type.Object(summaryFields);
export type ProjectSummary = Static<typeof ProjectSummary>;

export const ProjectList = Type.Object({ version: Type.Integer(), projects: Type.Array(ProjectSummary) });

export const FeatureNaming = Type.Object({
  pattern: Nullable(Type.String()),
  example: Nullable(Type.String()),
  description: Nullable(Type.String()),
});

export type FeatureNaming = Static<typeof FeatureNaming>;

/** A project with its settings and environments. */
export const ProjectDetails = Type.Object({
  ...summaryFields,
  featureLimit: Nullable(Type.Integer()),
  featureNaming: FeatureNaming,
  environments: Type.Array(
    Type.Object({
      environment: Type.String(),
      changeRequestsEnabled: Type.Boolean(),
      // What a flag switched on there without an active strategy is given (default-strategy.ts).
      defaultStrategy: Type.Optional(Strategy),
    }),
  ),
});
export type ProjectDetails = Static<typeof ProjectDetails>;
