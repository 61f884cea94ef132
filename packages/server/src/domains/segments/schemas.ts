import { type Static, Type } from "typebox";
import { Constraint, Nullable, StoredConstraint } from "../../shared/schemas.js";

export const SegmentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String())),
  project: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  constraints: Type.Array(Constraint),
});
export type SegmentInput = Static<typeof SegmentBody>;

export const SegmentId = Type.Object({ id: Type.Integer() });

/** A segment as the API shows it, and as its events carry it. */
export const SegmentView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  project: Nullable(Type.String()),
  constraints: Type.Array(StoredConstraint),
  createdAt: Type.String({ format: "date-time" }),
  createdBy: Nullable(Type.String()),
  usedInFeatures: Type.Integer(),
  usedInProjects: Type.Integer(),
});
export type SegmentView = Static<typeof SegmentView>;

export const SegmentList = Type.Object({ segments: Type.Array(SegmentView) });
/** A strategy that uses a segment, as the segments API lists them. */
export const StrategyUse = Type.Object({
  id: Type.String(),
  featureName: Type.String(),
  projectId: Type.String(),
  environment: Type.String(),
  strategyName: Type.String(),
});
export type StrategyUse = Static<typeof StrategyUse>;

export const SegmentUses = Type.Object({ strategies: Type.Array(StrategyUse) });
