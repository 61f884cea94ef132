import { notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee, hiddenProjects } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { FlagRow } from "../flags/service.js";
import { type FlagSources, featureViews, listingEntries, searchEntries } from "./assemble.js";
import type { FeatureView, ListingEntry, SearchQuery, SearchResult } from "./schemas.js";
import { searchPlan } from "./search.js";

type SearchPlan = ReturnType<typeof searchPlan>;

/** Whether a search asks what the flags' parts hold, or the caller's favourites, beyond the flags' own tables. */
const askedOfParts = (plan: SearchPlan) =>
  Boolean(plan.tags || plan.segments || plan.stage || plan.favorite !== undefined || plan.favoritesFirst);

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
    const [view] = await this.ofAll(db, [name]);
    return view!;
  }

  /** Flags that exist as their events carry them, in the order named. */
  async ofAll(db: Db, names: string[]): Promise<FeatureView[]> {
    const rows = new Map((await this.sources.flags.rows(db, names)).map((row) => [row.name, row]));
    return featureViews(
      db,
      names.map((name) => rows.get(name)!),
      this.sources,
    );
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
   * and only the page is read in full. Flags of projects hidden from the actor are never
   * matched. When nothing is asked of the parts, SQL reads the page alone.
   */
  async search(actor: Actor, query: SearchQuery): Promise<SearchResult> {
    const plan = searchPlan(query, hiddenProjects(actor));
    const favorites = await this.sources.favorites.features(actor);
    const page = { offset: plan.offset, limit: plan.limit };
    const found = askedOfParts(plan)
      ? await this.matches(actor, plan, favorites).then((rows) => ({
          rows: rows.slice(page.offset, page.offset + page.limit),
          total: rows.length,
        }))
      : await this.sources.flags.searchPage(this.db, plan.filter, page);
    const views = await featureViews(this.db, found.rows, this.sources, favorites);
    const usesSegments = views.some((flag) =>
      flag.environments.some((env) => env.strategies.some((strategy) => strategy.segments.length > 0)),
    );
    return {
      features: searchEntries(views, usesSegments ? await this.segmentNames(actor) : new Map()),
      total: found.total,
    };
  }

  /** The names of every flag the search matches, in its order: no page. */
  async matchingNames(actor: Actor, query: SearchQuery): Promise<string[]> {
    const plan = searchPlan(query, hiddenProjects(actor));
    const rows = await this.matches(actor, plan, await this.sources.favorites.features(actor));
    return rows.map((row) => row.name);
  }

  /** The rows of the flags a search matches, in its order. */
  private async matches(actor: Actor, plan: SearchPlan, favorites: ReadonlySet<string>): Promise<FlagRow[]> {
    const { sources } = this;
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
    return rows;
  }

  async listArchived(actor: Actor, projectId?: string): Promise<FeatureView[]> {
    const rows = (await this.sources.flags.archivedRows(this.db, projectId)).filter((row) =>
      canSee(actor, row.project),
    );
    return featureViews(this.db, rows, this.sources, await this.sources.favorites.features(actor));
  }

  private async segmentNames(actor: Actor): Promise<Map<number, string>> {
    return new Map(
      (await this.sources.segments.definitions(actor)).map((segment) => [segment.id, segment.name]),
    );
  }
}
