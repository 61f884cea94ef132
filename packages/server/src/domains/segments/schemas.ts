import { type Static, Type } from "typebox";
import { Constraint } from "../../shared/schemas.js";
import { StoredConstraint, StrategyUse } from "../features/strategies/schemas.js";

export const SegmentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  project: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  constraints: Type.Array(Constraint),
});
export type SegmentInput = Static<typeof SegmentBody>;

export const SegmentId = Type.Object({ id: Type.Integer() });

/** A segment as the API shows it, and as its events carry it. */
export const SegmentView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  project: Type.Union([Type.String(), Type.Null()]),
  constraints: Type.Array(StoredConstraint),
  createdAt: Type.String({ format: "date-time" }),
  createdBy: Type.Union([Type.String(), Type.Null()]),
  usedInFeatures: Type.Integer(),
  usedInProjects: Type.Integer(),
});
export type SegmentView = Static<typeof SegmentView>;

export const SegmentList = Type.Object({ segments: Type.Array(SegmentView) });
export const SegmentUses = Type.Object({ strategies: Type.Array(StrategyUse) });
