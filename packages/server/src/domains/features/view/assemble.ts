import type { Db } from "../../../db/connection.js";
import type { FavoriteService } from "../../favorites/service.js";
import type { SegmentService } from "../../segments/service.js";
import type { DependencyService } from "../dependencies/service.js";
import type { FlagRow, FlagService } from "../flags/service.js";
import type { LifecycleService } from "../lifecycle/service.js";
import type { StrategyService } from "../strategies/service.js";
import type { FeatureTagService } from "../tags/service.js";
import { flagPeople } from "./people.js";
import type { FeatureView, ListingEntry, SearchEntry } from "./schemas.js";

/** What the flag view reads: the flag itself, the parts that hang off it, and who marks or uses them. */
export interface FlagSources {
  flags: Pick<
    FlagService,
    "row" | "rows" | "activeRows" | "rowsInProject" | "archivedRows" | "searchRows" | "searchPage" | "states"
  >;
  strategies: Pick<StrategyService, "ofFlags">;
  tags: Pick<FeatureTagService, "ofFlags" | "taggedAmong">;
  dependencies: Pick<DependencyService, "parentsOf" | "childrenOf">;
  lifecycle: Pick<LifecycleService, "current">;
  favorites: Pick<FavoriteService, "features">;
  segments: Pick<SegmentService, "definitions">;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Rows grouped by a key, read back as a list per key (empty when none). */
function grouped<T>(rows: T[], key: (row: T) => string): (name: string) => T[] {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return (name) => map.get(name) ?? [];
}

/** Reads what every showing of a flag shows: its state and strategies in each environment, and its tags. */
async function held(db: Db, names: string[], sources: FlagSources) {
  const [environments, strategies, tags] = await Promise.all([
    sources.flags.states(db, names),
    sources.strategies.ofFlags(db, names),
    sources.tags.ofFlags(db, names),
  ]);
  return {
    environments: grouped(environments, (row) => row.feature_name),
    strategies: grouped(strategies, (row) => `${row.strategy.featureName}\u0000${row.environment}`),
    tags: grouped(tags, (row) => row.featureName),
  };
}

type Held = Awaited<ReturnType<typeof held>>;

/** Reads what the full view shows besides: links, stage, people. */
async function related(db: Db, rows: FlagRow[], sources: FlagSources) {
  const names = rows.map((row) => row.name);
  const [parents, children, stages, creators, authors] = await Promise.all([
    sources.dependencies.parentsOf(db, names),
    sources.dependencies.childrenOf(db, names),
    sources.lifecycle.current(db, names),
    flagPeople.byId(
      db,
      rows.flatMap((row) => row.created_by_user_id ?? []),
    ),
    flagPeople.authors(db, names),
  ]);
  return {
    parents: grouped(parents, (row) => row.child),
    children: grouped(children, (row) => row.parent),
    stage: (name: string) => stages.get(name),
    // A creator who is not a person (a token, the system, someone since deleted) keeps the
    // name recorded with the flag.
    creator: (row: FlagRow) =>
      (row.created_by_user_id !== null && creators.get(row.created_by_user_id)) || {
        id: row.created_by_user_id ?? 0,
        name: row.created_by ?? "unknown",
        imageUrl: "",
      },
    collaborators: grouped(authors, (author) => author.featureName),
  };
}

/** A flag's environments as its view shows them, in the environments' order. */
function environmentsOf(name: string, parts: Held): FeatureView["environments"] {
  return parts.environments(name).map((env) => {
    const strategies = parts.strategies(`${name}\u0000${env.environment}`).map((entry) => entry.strategy);
    return {
      name: env.environment,
      featureName: name,
      environment: env.environment,
      type: env.type,
      enabled: env.enabled,
      sortOrder: env.sort_order,
      variantCount: env.variants.length,
      strategies,
      variants: env.variants,
      lastSeenAt: iso(env.last_seen_at),
      hasStrategies: strategies.length > 0,
      hasEnabledStrategies: strategies.some((strategy) => !strategy.disabled),
    };
  });
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Full views of flags (the reference's Feature schema), in the order of `rows`. `favorites`
 * are the names the caller marked; events carry flags as no one in particular sees them.
 */
export async function featureViews(
  db: Db,
  rows: FlagRow[],
  sources: FlagSources,
  favorites = NONE,
): Promise<FeatureView[]> {
  const [parts, linked] = await Promise.all([
    held(
      db,
      rows.map((row) => row.name),
      sources,
    ),
    related(db, rows, sources),
  ]);
  return rows.map((row) => {
    const environments = environmentsOf(row.name, parts);
    const stage = linked.stage(row.name);
    return {
      name: row.name,
      type: row.type,
      description: row.description,
      project: row.project,
      enabled: environments.some((env) => env.enabled),
      stale: row.stale,
      favorite: favorites.has(row.name),
      impressionData: row.impression_data,
      archived: row.archived_at !== null,
      archivedAt: iso(row.archived_at),
      createdAt: row.created_at.toISOString(),
      createdBy: linked.creator(row),
      lastSeenAt: iso(row.last_seen_at),
      environments,
      variants: environments[0]?.variants ?? [],
      strategies: [],
      tags: parts.tags(row.name).map(({ type, value }) => ({ type, value })),
      children: linked.children(row.name).map((link) => link.child),
      dependencies: linked
        .parents(row.name)
        .map(({ feature, enabled, variants }) => ({ feature, enabled, variants })),
      ...(stage ? { lifecycle: stage } : {}),
      collaborators: { users: linked.collaborators(row.name).map((author) => author.person) },
    };
  });
}

/** What a listing shows of a flag's environment: no strategies or variants. */
const environmentSummary = (env: FeatureView["environments"][number]) => ({
  name: env.name,
  type: env.type,
  enabled: env.enabled,
  sortOrder: env.sortOrder,
  variantCount: env.variantCount,
  lastSeenAt: env.lastSeenAt,
  hasStrategies: env.hasStrategies,
  hasEnabledStrategies: env.hasEnabledStrategies,
});

/**
 * The entries of a project's flag listing (endpoint 14), `favorite` as the caller marked
 * them: only what they show is read, not the links, stages and people of full views.
 */
export async function listingEntries(
  db: Db,
  rows: FlagRow[],
  sources: FlagSources,
  favorites: ReadonlySet<string>,
): Promise<ListingEntry[]> {
  const parts = await held(
    db,
    rows.map((row) => row.name),
    sources,
  );
  return rows.map((row) => ({
    name: row.name,
    type: row.type,
    description: row.description,
    stale: row.stale,
    favorite: favorites.has(row.name),
    impressionData: row.impression_data,
    createdAt: row.created_at.toISOString(),
    lastSeenAt: iso(row.last_seen_at),
    environments: environmentsOf(row.name, parts).map(environmentSummary),
    tags: parts.tags(row.name).map(({ type, value }) => ({ type, value })),
  }));
}

/** The feature search's entries; `segments` names the segments the caller may see. */
export function searchEntries(views: FeatureView[], segments: ReadonlyMap<number, string>): SearchEntry[] {
  return views.map((feature) => {
    const used = new Set(
      feature.environments.flatMap((env) =>
        env.strategies.flatMap((strategy) => strategy.segments.flatMap((id) => segments.get(id) ?? [])),
      ),
    );
    return {
      name: feature.name,
      type: feature.type,
      description: feature.description,
      project: feature.project,
      stale: feature.stale,
      favorite: feature.favorite,
      impressionData: feature.impressionData,
      createdAt: feature.createdAt,
      createdBy: feature.createdBy,
      archivedAt: feature.archivedAt,
      lastSeenAt: feature.lastSeenAt,
      dependencyType:
        feature.children.length > 0 ? "parent" : feature.dependencies.length > 0 ? "child" : null,
      environments: feature.environments.map(environmentSummary),
      segments: [...used].sort(),
      tags: feature.tags,
      ...(feature.lifecycle ? { lifecycle: feature.lifecycle } : {}),
    };
  });
}
