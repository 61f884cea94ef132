import { type Static, Type } from "typebox";
import { Overrides, variantFields, WEIGHT_TYPES, WeightType } from "../../../shared/variant.js";

/** A flag variant; a weight type or stickiness left out stays out, as in the reference. */
export const Variants = Type.Array(
  Type.Object({
    ...variantFields,
    weightType: Type.Optional(WeightType),
    stickiness: Type.Optional(Type.String()),
  }),
);

/** The reference's `variants-batch` fills in a variable weight and `default` stickiness. */
export const BatchVariants = Type.Array(
  Type.Object({
    ...variantFields,
    weightType: Type.Optional(Type.Enum(WEIGHT_TYPES, { default: "variable" })),
    stickiness: Type.Optional(Type.String({ default: "default" })),
  }),
);

/** A variant as written: each of the lists above holds these. */
export type VariantInput = Static<typeof Variants>[number];

/** A variant as stored and shown: what was sent, with its weight settled. */
export const StoredVariant = Type.Object({
  name: Type.String(),
  weight: Type.Integer(),
  weightType: Type.Optional(Type.String()),
  stickiness: Type.Optional(Type.String()),
  payload: Type.Optional(Type.Object({ type: Type.String(), value: Type.String() })),
  overrides: Type.Optional(Overrides),
});

export const BatchBody = Type.Object({
  variants: BatchVariants,
  environments: Type.Array(Type.String(), { minItems: 1 }),
});

export const VariantsReply = Type.Object({ version: Type.Integer(), variants: Type.Array(StoredVariant) });
