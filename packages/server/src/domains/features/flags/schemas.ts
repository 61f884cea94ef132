import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../../shared/schemas.js";

const FEATURE_TYPES = ["release", "experiment", "operational", "kill-switch", "permission"] as const;
export const FeatureType = Type.Enum(FEATURE_TYPES);

export const Description = Nullable(Type.String());

export const UpdateFeature = Type.Object({
  type: Type.Optional(FeatureType),
  description: Type.Optional(Description),
  impressionData: Type.Optional(Type.Boolean()),
  stale: Type.Optional(Type.Boolean()),
});
export type UpdateFeature = Static<typeof UpdateFeature>;

/** What a JSON Patch of a flag may produce: its metadata, and the project it lives in. */
export const PatchableFeature = Type.Object({
  type: FeatureType,
  description: Description,
  impressionData: Type.Boolean(),
  stale: Type.Boolean(),
  project: Type.String({ minLength: 1 }),
});

export const ValidateName = Type.Object({ name: urlSafeName() });
export const Staleness = Type.Object({ features: Type.Array(Type.String()), stale: Type.Boolean() });
