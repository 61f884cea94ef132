import { type Static, Type } from "typebox";
import { Nullable } from "../../../shared/schemas.js";
import { ParentView } from "../dependencies/schemas.js";
import { Description } from "../flags/schemas.js";
import { CurrentStage } from "../lifecycle/schemas.js";
import { StrategyView } from "../strategies/schemas.js";
import { FeatureTag } from "../tags/schemas.js";
import { StoredVariant } from "../variants/schemas.js";

const TagFilter = Type.String({ pattern: "^\\w+:.+$" });
export const ListQuery = Type.Object({
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(Type.Union([TagFilter, Type.Array(TagFilter)])),
});

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

// The feature search (the reference's `GET /api/admin/search/features`): filters are written
// `OPERATOR:value,value`, as the reference's.
const setOperators = "^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF):(.*?)(,([a-zA-Z0-9_]+))*$";
const listOperators =
  "^(INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL):";
const dateOperators = "^(IS_BEFORE|IS_ON_OR_AFTER):\\d{4}-\\d{2}-\\d{2}$";
const filter = (pattern: string, description: string, example: string) =>
  Type.Optional(Type.String({ pattern, description, examples: [example] }));

export const SearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({ description: "Comma-separated terms, any of which the name or description contains" }),
  ),
  project: filter(setOperators, "Projects, with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF", "IS:default"),
  type: filter(setOperators, "Flag types, with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF", "IS:release"),
  state: filter(setOperators, "active, stale or potentially-stale, with IS, IS_NOT, …", "IS:active"),
  lifecycle: filter(setOperators, "Lifecycle stages (archived among them), with IS, IS_NOT, …", "IS:live"),
  createdBy: filter(setOperators, "Ids of the users who created the flags, with IS, IS_NOT, …", "IS:1"),
  tag: filter(
    `${listOperators}([^:,]+:.+?)(,\\s*[^:,]+:.+?)*$`,
    "Tags as type:value, with INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL",
    "INCLUDE:simple:my_tag",
  ),
  segment: filter(
    `${listOperators}(.*?)(,([a-zA-Z0-9_]+))*$`,
    "Names of segments the flags' strategies use, with the tag operators",
    "INCLUDE:pro-users",
  ),
  status: Type.Optional(
    Type.Array(Type.String(), {
      description: "environment:enabled or environment:disabled; a flag matching any of them is listed",
    }),
  ),
  createdAt: filter(
    dateOperators,
    "Creation date, with IS_BEFORE or IS_ON_OR_AFTER",
    "IS_ON_OR_AFTER:2024-01-31",
  ),
  lastSeenAt: filter(
    dateOperators,
    "Last use reported by an SDK, with IS_BEFORE or IS_ON_OR_AFTER",
    "IS_BEFORE:2024-01-31",
  ),
  favorite: filter(
    "^(IS|IS_ANY_OF):(true|false)(,(true|false))*$",
    "The caller's favourites or not",
    "IS:true",
  ),
  archived: filter(
    "^IS:(true|false)$",
    "IS:true lists archived flags only (lifecycle=IS:archived does too)",
    "IS:true",
  ),
  favoritesFirst: Type.Optional(Type.String({ description: "true lists the caller's favourites first" })),
  sortBy: Type.Optional(
    Type.String({
      description: "name, type, stale, project, createdAt (the default), lastSeenAt or environment:<name>",
    }),
  ),
  sortOrder: Type.Optional(Type.String({ description: "asc (the default) or desc" })),
  offset: Type.Optional(Type.String({ description: "Matches to skip; 0 unless a positive number" })),
  limit: Type.Optional(Type.String({ description: "Page size from 1 to 100; 50 otherwise" })),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchEntry = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Description,
  project: Type.String(),
  stale: Type.Boolean(),
  favorite: Type.Boolean(),
  impressionData: Type.Boolean(),
  createdAt: DateTime,
  createdBy: Person,
  archivedAt: NullableDateTime,
  /** The latest use any environment reported. */
  lastSeenAt: NullableDateTime,
  dependencyType: Type.Unsafe<"parent" | "child" | null>({
    type: ["string", "null"],
    enum: ["parent", "child", null],
  }),
  environments: Type.Array(Type.Object(environmentSummary)),
  /** The names of the segments the flag's strategies use, in any environment. */
  segments: Type.Array(Type.String()),
  tags: Type.Array(FeatureTag),
  lifecycle: Type.Optional(CurrentStage),
});
export type SearchEntry = Static<typeof SearchEntry>;

export const SearchResult = Type.Object({
  features: Type.Array(SearchEntry),
  /** Every match, wherever the page starts. */
  total: Type.Integer(),
});
export type SearchResult = Static<typeof SearchResult>;
