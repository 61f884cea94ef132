import { Type } from "typebox";
import { Constraint, urlSafeName } from "../../shared/schemas.js";

export const FEATURE_TYPES = ["release", "experiment", "operational", "kill-switch", "permission"] as const;

const Payload = Type.Object({
  type: Type.Enum(["json", "csv", "string", "number"]),
  value: Type.String(),
});

const WEIGHT_TYPES = ["variable", "fix"] as const;
const WeightType = Type.Enum(WEIGHT_TYPES);

const variantFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  weight: Type.Integer({ minimum: 0, maximum: 1000 }),
  payload: Type.Optional(Payload),
  overrides: Type.Optional(
    Type.Array(
      Type.Object({ contextName: Type.String({ minLength: 1 }), values: Type.Array(Type.String()) }),
    ),
  ),
};

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

/** A strategy variant: the spec requires its weight type and stickiness. */
const StrategyVariants = Type.Array(
  Type.Object({ ...variantFields, weightType: WeightType, stickiness: Type.String() }),
);

export const Tag = Type.Object({
  type: Type.Optional(Type.String({ minLength: 2, maxLength: 50 })),
  value: Type.String({ minLength: 2, maxLength: 50 }),
});

export const CreateFeature = Type.Object({
  name: urlSafeName(),
  type: Type.Optional(Type.Enum(FEATURE_TYPES)),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  impressionData: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Tag)),
  /** Set in every environment of the flag as sent, weights included, as the reference does. */
  variants: Type.Optional(Variants),
});

export const UpdateFeature = Type.Object({
  type: Type.Optional(Type.Enum(FEATURE_TYPES)),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  impressionData: Type.Optional(Type.Boolean()),
  stale: Type.Optional(Type.Boolean()),
});

/** What a JSON Patch of a flag may produce: its metadata, and the project it lives in. */
export const PatchableFeature = Type.Object({
  type: Type.Enum(FEATURE_TYPES),
  description: Type.Union([Type.String(), Type.Null()]),
  impressionData: Type.Boolean(),
  stale: Type.Boolean(),
  project: Type.String({ minLength: 1 }),
});

/** Parameters are strings on the wire; numbers and booleans from older scripts are coerced. */
const Parameters = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

export const Strategy = Type.Object({
  name: Type.String({ minLength: 1 }),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  sortOrder: Type.Optional(Type.Integer()),
  constraints: Type.Optional(Type.Array(Constraint)),
  segments: Type.Optional(Type.Array(Type.Integer())),
  parameters: Type.Optional(Parameters),
  variants: Type.Optional(StrategyVariants),
});

export const Dependency = Type.Object({
  feature: Type.String({ minLength: 1 }),
  enabled: Type.Optional(Type.Boolean()),
  variants: Type.Optional(Type.Array(Type.String())),
});

export const ProjectParams = Type.Object({ projectId: Type.String() });
export const FeatureParams = Type.Object({ projectId: Type.String(), featureName: Type.String() });
export const EnvironmentParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
});
export const StrategyParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  strategyId: Type.String(),
});
