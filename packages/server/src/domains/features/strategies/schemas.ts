import { type Static, Type } from "typebox";
import { Constraint, Nullable } from "../../../shared/schemas.js";
import { StoredVariant, StrategyVariants } from "../variants/schemas.js";

/** Parameters are strings on the wire; numbers and booleans from older scripts are coerced. */
const Parameters = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

/** A strategy as PUT and POST send it, and as a PATCH must leave it. */
export const Strategy = Type.Object({
  name: Type.String({ minLength: 1 }),
  title: Type.Optional(Nullable(Type.String())),
  disabled: Type.Optional(Nullable(Type.Boolean())),
  sortOrder: Type.Optional(Type.Integer()),
  constraints: Type.Optional(Type.Array(Constraint)),
  segments: Type.Optional(Type.Array(Type.Integer())),
  parameters: Type.Optional(Parameters),
  variants: Type.Optional(StrategyVariants),
});
export type StrategyInput = Static<typeof Strategy>;

export const SortOrder = Type.Array(Type.Object({ id: Type.String(), sortOrder: Type.Integer() }));
export type SortOrder = Static<typeof SortOrder>;

export const StrategyParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  strategyId: Type.String(),
});

/**
 * A constraint as stored and shown: written through `Constraint`, read back without
 * narrowing, so what older writers stored still reads.
 */
export const StoredConstraint = Type.Object({
  contextName: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String())),
  value: Type.Optional(Type.String()),
  inverted: Type.Optional(Type.Boolean()),
  caseInsensitive: Type.Optional(Type.Boolean()),
});

/** A strategy as the admin API shows it, and as its events carry it. */
export const StrategyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  title: Nullable(Type.String()),
  disabled: Type.Boolean(),
  featureName: Type.String(),
  sortOrder: Type.Integer(),
  segments: Type.Array(Type.Integer()),
  constraints: Type.Array(StoredConstraint),
  variants: Type.Array(StoredVariant),
  parameters: Type.Record(Type.String(), Type.String()),
});
export type StrategyView = Static<typeof StrategyView>;

/** Which strategies use a segment (the segments API lists them). */
export const StrategyUse = Type.Object({
  id: Type.String(),
  featureName: Type.String(),
  projectId: Type.String(),
  environment: Type.String(),
  strategyName: Type.String(),
});
export type StrategyUse = Static<typeof StrategyUse>;
