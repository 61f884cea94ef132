import { notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee, hiddenProjects } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import { type FlagSources, featureViews, listingEntries, searchEntries } from "./assemble.js";
import type { FeatureView, ListingEntry, SearchQuery, SearchResult } from "./schemas.js";
import { searchPlan } from "./search.js";

/** The names each flag holds, read from rows that name their flag. */
function heldBy<T extends { featureName: string }>(
  rows: T[],
  name: (row: T) => string | undefined,
): (flag: string) => ReadonlySet<string> {
  const held = new Map<string, Set<string>>();
  for (const row of rows) {
    const value = name(row);
    if (value === undefined) continue;
    const set = held.get(row.featureName) ?? new Set();
    held.set(row.featureName, set.add(value));
  }
  const none: ReadonlySet<string> = new Set();
  return (flag) => held.get(flag) ?? none;
}

/**
 * The flag as the admin API shows it, gathered from the flags' own tables and from what each
 * part holds of it: single flags, a project's listing, the archive and the feature search.
 * It only reads; the flag's events carry its view as read here.
 */
export class FlagViewService {
  constructor(
    private readonly db: Db,
    private readonly sources: FlagSources,
  ) {}

  /** A flag, archived or not; of the project in the path when there is one. */
  async get(actor: Actor, projectId: string | undefined, name: string): Promise<FeatureView> {
    const row = await this.sources.flags.row(this.db, name);
    if (!row || (projectId !== undefined && row.project !== projectId) || !canSee(actor, row.project)) {
      throw notFound(`Could not find feature flag ${name}`);
    }
    const [view] = await featureViews(
      this.db,
      [row],
      this.sources,
      await this.sources.favorites.features(actor),
    );
    return view!;
  }

  /** A flag as its events carry it: as no one in particular sees it, archived or not. */
  async of(db: Db, name: string): Promise<FeatureView> {
    const [view] = await featureViews(db, [(await this.sources.flags.row(db, name))!], this.sources);
    return view!;
  }

  /** The active flags of those named that the actor may see, in the order named; the others are left out. */
  async activeViews(actor: Actor, names: string[]): Promise<FeatureView[]> {
    const order = new Map(names.map((name, index) => [name, index]));
    const rows = (await this.sources.flags.activeRows(this.db, names))
      .filter((row) => canSee(actor, row.project))
      .sort((a, b) => order.get(a.name)! - order.get(b.name)!);
    return featureViews(this.db, rows, this.sources, await this.sources.favorites.features(actor));
  }

  async listProject(
    actor: Actor,
    projectId: string,
    filters: { namePrefix?: string; tags: string[] },
  ): Promise<ListingEntry[]> {
    let rows = await this.sources.flags.rowsInProject(this.db, projectId, filters.namePrefix);
    if (filters.tags.length > 0) {
      const names = rows.map((row) => row.name);
      const tagged = await this.sources.tags.taggedAmong(this.db, names, filters.tags);
      rows = rows.filter((row) => tagged.has(row.name));
    }
    return listingEntries(this.db, rows, this.sources, await this.sources.favorites.features(actor));
  }

  /**
   * The feature search: what the flags' own tables hold is filtered and sorted in SQL, then
   * tags, segments, lifecycle stages and favourites are asked of the parts that hold them,
   * and only the page is read in full. Flags of projects hidden from the actor are never matched.
   */
  async search(actor: Actor, query: SearchQuery): Promise<SearchResult> {
    const plan = searchPlan(query, hiddenProjects(actor));
    const { sources } = this;
    const favorites = await sources.favorites.features(actor);
    let rows = await sources.flags.searchRows(this.db, plan.filter);
    const names = () => rows.map((row) => row.name);
    const { tags, segments, stage } = plan;
    if (tags) {
      const held = heldBy(await sources.tags.ofFlags(this.db, names()), (tag) => `${tag.type}:${tag.value}`);
      rows = rows.filter((row) => tags(held(row.name)));
    }
    if (segments) {
      const named = await this.segmentNames(actor);
      const used = await sources.strategies.ofFlags(this.db, names());
      const held = heldBy(
        used.flatMap(({ strategy }) =>
          strategy.segments.map((id) => ({ featureName: strategy.featureName, name: named.get(id) })),
        ),
        (use) => use.name,
      );
      rows = rows.filter((row) => segments(held(row.name)));
    }
    if (stage) {
      const stages = await sources.lifecycle.current(this.db, names());
      rows = rows.filter((row) => stage(row.archived_at !== null, stages.get(row.name)?.stage));
    }
    if (plan.favorite !== undefined) rows = rows.filter((row) => favorites.has(row.name) === plan.favorite);
    if (plan.favoritesFirst) {
      rows = [
        ...rows.filter((row) => favorites.has(row.name)),
        ...rows.filter((row) => !favorites.has(row.name)),
      ];
    }
    const page = await featureViews(
      this.db,
      rows.slice(plan.offset, plan.offset + plan.limit),
      sources,
      favorites,
    );
    const usesSegments = page.some((flag) =>
      flag.environments.some((env) => env.strategies.some((strategy) => strategy.segments.length > 0)),
    );
    return {
      features: searchEntries(page, usesSegments ? await this.segmentNames(actor) : new Map()),
      total: rows.length,
    };
  }

  async listArchived(actor: Actor, projectId?: string): Promise<FeatureView[]> {
    const rows = (await this.sources.flags.archivedRows(this.db, projectId)).filter((row) =>
      canSee(actor, row.project),
    );
    return featureViews(this.db, rows, this.sources, await this.sources.favorites.features(actor));
  }

  private async segmentNames(actor: Actor): Promise<Map<number, string>> {
    return new Map((await this.sources.segments.list(actor)).map((segment) => [segment.id, segment.name]));
  }
}
