import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../shared/schemas.js";

const PARAMETER_TYPES = ["string", "percentage", "list", "number", "boolean"] as const;

export const StrategyName = Type.Object({ name: Type.String() });

const ParameterInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Enum(PARAMETER_TYPES),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
});

const definition = {
  displayName: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Type.Array(ParameterInput)),
};

export const NewStrategyDefinition = Type.Object({ name: urlSafeName(), ...definition });
export type NewStrategyDefinition = Static<typeof NewStrategyDefinition>;

// Clients of the reference send the name in the body as well; the path decides.
export const StrategyDefinitionUpdate = Type.Object({ name: Type.Optional(Type.String()), ...definition });
export type StrategyDefinitionUpdate = Static<typeof StrategyDefinitionUpdate>;

/** A parameter as stored and shown: its description and whether it is required always filled in. */
export const StrategyParameter = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
});
export type StrategyParameter = Static<typeof StrategyParameter>;

export const StrategyDefinition = Type.Object({
  name: Type.String(),
  displayName: Nullable(Type.String()),
  description: Nullable(Type.String()),
  editable: Type.Boolean(),
  deprecated: Type.Boolean(),
  parameters: Type.Array(StrategyParameter),
});
export type StrategyDefinitionView = Static<typeof StrategyDefinition>;

export const StrategyDefinitionList = Type.Object({
  version: Type.Literal(1),
  strategies: Type.Array(StrategyDefinition),
});
