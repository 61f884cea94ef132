import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";
import { ListingEntry } from "../features/view/schemas.js";
import { FeatureNaming, ProjectDetails } from "../projects/schemas.js";

export const ProjectParams = Type.Object({ projectId: Type.String() });

/** The last 30 days (current window) against the 30 before them (past window). */
export const ProjectStats = Type.Object({
  avgTimeToProdCurrentWindow: Type.Number(),
  createdCurrentWindow: Type.Integer(),
  createdPastWindow: Type.Integer(),
  archivedCurrentWindow: Type.Integer(),
  archivedPastWindow: Type.Integer(),
  projectActivityCurrentWindow: Type.Integer(),
  projectActivityPastWindow: Type.Integer(),
  projectMembersAddedCurrentWindow: Type.Integer(),
});
export type ProjectStats = Static<typeof ProjectStats>;

const flagCounts = {
  activeCount: Type.Integer(),
  potentiallyStaleCount: Type.Integer(),
  staleCount: Type.Integer(),
};
const Rating = Type.Integer({ minimum: 0, maximum: 100 });
const NullableDateTime = Nullable(Type.String({ format: "date-time" }));

/** Endpoint 1 (healthReportSchema). */
export const HealthReport = Type.Object({
  version: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  defaultStickiness: Type.String(),
  mode: Type.String(),
  featureLimit: Nullable(Type.Integer()),
  members: Type.Integer(),
  health: Rating,
  technicalDebt: Rating,
  environments: ProjectDetails.properties.environments,
  features: Type.Array(ListingEntry),
  updatedAt: NullableDateTime,
  createdAt: NullableDateTime,
  favorite: Type.Boolean(),
  stats: ProjectStats,
  featureNaming: FeatureNaming,
  ...flagCounts,
});
export type HealthReport = Static<typeof HealthReport>;

const Health = Type.Object({ rating: Rating, ...flagCounts });

/** Endpoint 10 (projectInsightsSchema). */
export const ProjectInsights = Type.Object({
  stats: ProjectStats,
  health: Health,
  technicalDebt: Health,
  leadTime: Type.Object({
    projectAverage: Type.Number(),
    features: Type.Array(Type.Object({ name: Type.String(), timeToProduction: Type.Number() })),
  }),
  featureTypeCounts: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
  members: Type.Object({ currentMembers: Type.Integer(), change: Type.Integer() }),
});
export type ProjectInsights = Static<typeof ProjectInsights>;
