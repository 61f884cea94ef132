import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../../shared/schemas.js";
import { ParentView } from "../dependencies/schemas.js";
import { CurrentStage } from "../lifecycle/schemas.js";
import { StrategyView } from "../strategies/schemas.js";
import { FeatureTag, Tag } from "../tags/schemas.js";
import { StoredVariant, Variants } from "../variants/schemas.js";

const FEATURE_TYPES = ["release", "experiment", "operational", "kill-switch", "permission"] as const;

const Description = Nullable(Type.String());

export const CreateFeature = Type.Object({
  name: urlSafeName(),
  type: Type.Optional(Type.Enum(FEATURE_TYPES)),
  description: Type.Optional(Description),
  impressionData: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Tag)),
  /** Set in every environment of the flag as sent, weights included, as the reference does. */
  variants: Type.Optional(Variants),
});
export type CreateFeature = Static<typeof CreateFeature>;

export const UpdateFeature = Type.Object({
  type: Type.Optional(Type.Enum(FEATURE_TYPES)),
  description: Type.Optional(Description),
  impressionData: Type.Optional(Type.Boolean()),
  stale: Type.Optional(Type.Boolean()),
});
export type UpdateFeature = Static<typeof UpdateFeature>;

/** What a JSON Patch of a flag may produce: its metadata, and the project it lives in. */
export const PatchableFeature = Type.Object({
  type: Type.Enum(FEATURE_TYPES),
  description: Description,
  impressionData: Type.Boolean(),
  stale: Type.Boolean(),
  project: Type.String({ minLength: 1 }),
});

export const ValidateName = Type.Object({ name: urlSafeName() });
export const Names = Type.Object({ features: Type.Array(Type.String(), { minItems: 1 }) });
export const Staleness = Type.Object({ features: Type.Array(Type.String()), stale: Type.Boolean() });

const TagFilter = Type.String({ pattern: "^\\w+:.+$" });
export const ListQuery = Type.Object({
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(Type.Union([TagFilter, Type.Array(TagFilter)])),
});

export const SwitchQuery = Type.Object({ shouldActivateDisabledStrategies: Type.Optional(Type.Boolean()) });

const DateTime = Type.String({ format: "date-time" });
const NullableDateTime = Nullable(DateTime);

/** What a flag's listing entry and its full view both show of an environment. */
const environmentSummary = {
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  sortOrder: Type.Integer(),
  variantCount: Type.Integer(),
  lastSeenAt: NullableDateTime,
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean(),
};

const Person = Type.Object({ id: Type.Integer(), name: Type.String(), imageUrl: Type.String() });

/** A flag as the admin API shows it (the reference's Feature schema), and as its events carry it. */
export const FeatureView = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Description,
  project: Type.String(),
  enabled: Type.Boolean(),
  stale: Type.Boolean(),
  favorite: Type.Boolean(),
  impressionData: Type.Boolean(),
  archived: Type.Boolean(),
  archivedAt: NullableDateTime,
  createdAt: DateTime,
  createdBy: Person,
  lastSeenAt: NullableDateTime,
  environments: Type.Array(
    Type.Object({
      ...environmentSummary,
      featureName: Type.String(),
      environment: Type.String(),
      strategies: Type.Array(StrategyView),
      variants: Type.Array(StoredVariant),
    }),
  ),
  /** Deprecated in the reference since v5: flag variants live per environment. */
  variants: Type.Array(StoredVariant),
  strategies: Type.Array(StrategyView),
  tags: Type.Array(FeatureTag),
  children: Type.Array(Type.String()),
  dependencies: Type.Array(ParentView),
  lifecycle: Type.Optional(CurrentStage),
  collaborators: Type.Object({ users: Type.Array(Person) }),
});
export type FeatureView = Static<typeof FeatureView>;

export const FeatureList = Type.Object({ version: Type.Integer(), features: Type.Array(FeatureView) });

/** The slimmer entries of a project's flag listing (endpoint 14). */
export const ListingEntry = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Description,
  stale: Type.Boolean(),
  favorite: Type.Boolean(),
  impressionData: Type.Boolean(),
  createdAt: DateTime,
  lastSeenAt: NullableDateTime,
  environments: Type.Array(Type.Object(environmentSummary)),
  tags: Type.Array(FeatureTag),
});
export type ListingEntry = Static<typeof ListingEntry>;

export const Listing = Type.Object({ version: Type.Integer(), features: Type.Array(ListingEntry) });
