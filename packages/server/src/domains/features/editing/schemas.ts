import { type Static, Type } from "typebox";
import { urlSafeName } from "../../../shared/schemas.js";
import { Description, FeatureType } from "../flags/schemas.js";
import { Tag } from "../tags/schemas.js";
import { Variants } from "../variants/schemas.js";

export const CreateFeature = Type.Object({
  name: urlSafeName(),
  type: Type.Optional(FeatureType),
  description: Type.Optional(Description),
  impressionData: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Tag)),
  /** Set in every environment of the flag as sent, weights included, as the reference does. */
  variants: Type.Optional(Variants),
});
export type CreateFeature = Static<typeof CreateFeature>;

export const Names = Type.Object({ features: Type.Array(Type.String(), { minItems: 1 }) });

export const SwitchQuery = Type.Object({ shouldActivateDisabledStrategies: Type.Optional(Type.Boolean()) });
