import { Type } from "typebox";

const Payload = Type.Object({
  type: Type.Enum(["json", "csv", "string", "number"]),
  value: Type.String(),
});

export const WEIGHT_TYPES = ["variable", "fix"] as const;
export const WeightType = Type.Enum(WEIGHT_TYPES);

export const Overrides = Type.Array(
  Type.Object({ contextName: Type.String({ minLength: 1 }), values: Type.Array(Type.String()) }),
);

/** What every variant is written with, a flag's or a strategy's. */
export const variantFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  weight: Type.Integer({ minimum: 0, maximum: 1000 }),
  payload: Type.Optional(Payload),
  overrides: Type.Optional(Overrides),
};

/** A strategy variant: the spec requires its weight type and stickiness. */
export const StrategyVariants = Type.Array(
  Type.Object({ ...variantFields, weightType: WeightType, stickiness: Type.String() }),
);
