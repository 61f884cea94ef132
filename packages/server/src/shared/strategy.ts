import { type Static, Type } from "typebox";
import { Constraint, Nullable } from "./schemas.js";
import { StrategyVariants } from "./variant.js";

/** Parameters are strings on the wire; numbers and booleans from older scripts are coerced. */
const Parameters = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

/**
 * A strategy as PUT and POST send it, and as a PATCH must leave it. Low in the layers: a
 * project's default strategy is one too, and projects sit below flags.
 */
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
