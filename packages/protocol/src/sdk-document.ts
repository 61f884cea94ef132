import { type Static, Type } from "typebox";
import { Nullable } from "./nullable.js";

// The client-features document a flag service sends to server-side SDKs
// (GET /api/client/features, /api/client/features/:name) and that the proxy consumes and
// serves again. Required is only what every server sends; the rest is optional because
// real servers have been seen to leave it out. Unknown operators and strategy names are
// not refused here: the engine evaluates them as false, which is the protocol's rule.

export const ConstraintSchema = Type.Object({
  contextName: Type.String(),
  operator: Type.String({ description: "One of the engine's CONSTRAINT_OPERATORS; others are false." }),
  values: Type.Optional(Type.Array(Type.String())),
  value: Type.Optional(Type.String()),
  inverted: Type.Optional(Type.Boolean()),
  caseInsensitive: Type.Optional(Type.Boolean()),
});

export const PayloadSchema = Type.Object({
  type: Type.String({ description: "json, csv, string or number" }),
  value: Type.String(),
});

export const OverrideSchema = Type.Object({
  contextName: Type.String(),
  values: Type.Array(Type.String()),
});

/** A flag's or a strategy's variant; strategy variants always carry weightType and stickiness. */
export const VariantSchema = Type.Object({
  name: Type.String(),
  weight: Type.Number({ minimum: 0, maximum: 1000 }),
  weightType: Type.Optional(Type.String({ description: "variable or fix" })),
  stickiness: Type.Optional(Type.String()),
  payload: Type.Optional(PayloadSchema),
  overrides: Type.Optional(Type.Array(OverrideSchema)),
});

export const StrategySchema = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.String(),
  title: Type.Optional(Nullable(Type.String())),
  disabled: Type.Optional(Nullable(Type.Boolean())),
  sortOrder: Type.Optional(Type.Number()),
  constraints: Type.Optional(Type.Array(ConstraintSchema)),
  parameters: Type.Optional(Type.Record(Type.String(), Type.String())),
  variants: Type.Optional(Type.Array(VariantSchema)),
  segments: Type.Optional(Type.Array(Type.Integer(), { description: "Ids of segments in `segments`." })),
});

export const DependencySchema = Type.Object({
  feature: Type.String(),
  enabled: Type.Optional(Type.Boolean()),
  variants: Type.Optional(Type.Array(Type.String())),
});

export const FeatureSchema = Type.Object({
  name: Type.String(),
  type: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  project: Type.Optional(Type.String()),
  stale: Type.Optional(Type.Boolean()),
  enabled: Type.Boolean(),
  impressionData: Type.Optional(Nullable(Type.Boolean())),
  strategies: Type.Optional(Type.Array(StrategySchema)),
  variants: Type.Optional(Nullable(Type.Array(VariantSchema))),
  dependencies: Type.Optional(Type.Array(DependencySchema)),
});

export const SegmentSchema = Type.Object({
  id: Type.Integer(),
  name: Type.Optional(Type.String()),
  constraints: Type.Array(ConstraintSchema),
});

/** The filters the document was made for, echoed back. */
export const ClientFeaturesQuerySchema = Type.Object({
  tag: Type.Optional(Type.Array(Type.Array(Type.String()))),
  project: Type.Optional(Type.Array(Type.String())),
  namePrefix: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  inlineSegmentConstraints: Type.Optional(Type.Boolean()),
});

export const ClientFeaturesMetaSchema = Type.Object({
  revisionId: Type.Optional(Type.Number()),
  etag: Type.Optional(Nullable(Type.String())),
  queryHash: Type.Optional(Type.String()),
});

export const ClientFeaturesSchema = Type.Object({
  version: Type.Optional(Type.Integer({ description: "2 from current servers." })),
  features: Type.Array(FeatureSchema),
  query: Type.Optional(ClientFeaturesQuerySchema),
  segments: Type.Optional(
    Type.Array(SegmentSchema, {
      description: "Left out when segment constraints are inlined into the strategies (client spec < 4.2.2).",
    }),
  ),
  meta: Type.Optional(ClientFeaturesMetaSchema),
});

export type ConstraintDefinition = Static<typeof ConstraintSchema>;
export type PayloadDefinition = Static<typeof PayloadSchema>;
export type OverrideDefinition = Static<typeof OverrideSchema>;
export type VariantDefinition = Static<typeof VariantSchema>;
export type StrategyDefinition = Static<typeof StrategySchema>;
export type DependencyDefinition = Static<typeof DependencySchema>;
export type FeatureDefinition = Static<typeof FeatureSchema>;
export type SegmentDefinition = Static<typeof SegmentSchema>;
export type ClientFeaturesQuery = Static<typeof ClientFeaturesQuerySchema>;
export type ClientFeatures = Static<typeof ClientFeaturesSchema>;
