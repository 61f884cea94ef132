import { type Static, Type } from "typebox";
import { Nullable, StoredConstraint } from "../../../shared/schemas.js";
import { StoredVariant } from "../variants/schemas.js";

export { Strategy, type StrategyInput } from "../../../shared/strategy.js";

export const SortOrder = Type.Array(Type.Object({ id: Type.String(), sortOrder: Type.Integer() }));
export type SortOrder = Static<typeof SortOrder>;

export const StrategyParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  strategyId: Type.String(),
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
