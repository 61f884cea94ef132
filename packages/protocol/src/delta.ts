import { type Static, Type } from "typebox";
import { FeatureSchema, SegmentSchema } from "./sdk-document.js";

// The delta protocol (GET /api/client/delta): what changed since the revision an SDK names
// in If-None-Match, or a hydration with everything when the server cannot tell.

const eventId = Type.Integer({ description: "The revision the change belongs to." });

export const HydrationEventSchema = Type.Object({
  type: Type.Literal("hydration"),
  eventId,
  features: Type.Array(FeatureSchema),
  segments: Type.Array(SegmentSchema),
});

export const FeatureUpdatedEventSchema = Type.Object({
  type: Type.Literal("feature-updated"),
  eventId,
  feature: FeatureSchema,
});

export const FeatureRemovedEventSchema = Type.Object({
  type: Type.Literal("feature-removed"),
  eventId,
  featureName: Type.String(),
  project: Type.Optional(Type.String()),
});

export const SegmentUpdatedEventSchema = Type.Object({
  type: Type.Literal("segment-updated"),
  eventId,
  segment: SegmentSchema,
});

export const SegmentRemovedEventSchema = Type.Object({
  type: Type.Literal("segment-removed"),
  eventId,
  segmentId: Type.Integer(),
});

export const DeltaEventSchema = Type.Union([
  HydrationEventSchema,
  FeatureUpdatedEventSchema,
  FeatureRemovedEventSchema,
  SegmentUpdatedEventSchema,
  SegmentRemovedEventSchema,
]);

export const ClientFeaturesDeltaSchema = Type.Object({ events: Type.Array(DeltaEventSchema) });

export type DeltaEvent = Static<typeof DeltaEventSchema>;
export type DeltaDocument = Static<typeof ClientFeaturesDeltaSchema>;
