import { nameExists, noAccess, notFound, validationError } from "@signalbox/protocol";
import { type Actor, actorUserId } from "../../../access/actor.js";
import { canSee, hiddenProjects, requirePermission } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { VariantRow } from "../../../db/schema.js";
import { type PatchOperations, patched } from "../../../shared/json-patch.js";
import { refuseUnreviewable, refuseUnreviewed } from "../../change-requests/gate.js";
import type { Change, EventService } from "../../events/service.js";
import type { FavoriteService } from "../../favorites/service.js";
import { checkFlagName } from "../../projects/naming.js";
import type { ProjectService } from "../../projects/service.js";
import type { SegmentService } from "../../segments/service.js";
import type { DependencyService } from "../dependencies/service.js";
import type { LifecycleService } from "../lifecycle/service.js";
import type { EnvironmentParams } from "../params.js";
import type { StrategyService } from "../strategies/service.js";
import type { FeatureTagService } from "../tags/service.js";
import { variantsAsSent } from "../variants/weights.js";
import {
  type CreateFeature,
  type FeatureView,
  type ListingEntry,
  PatchableFeature,
  type SearchQuery,
  type SearchResult,
  type UpdateFeature,
} from "./schemas.js";
import { searchPlan } from "./search.js";
import { type FeatureRow, flagStore } from "./store.js";
import { featureViews, listingEntries, searchEntries } from "./view.js";

/** A flag as the other sub-domains and domains see it. */
export interface FlagRef {
  name: string;
  project: string;
  archived: boolean;
}

const ref = (row: Pick<FeatureRow, "name" | "project" | "archived_at">): FlagRef => ({
  name: row.name,
  project: row.project,
  archived: row.archived_at !== null,
});

/** What flags ask of the sub-domains that hang off them, which in turn ask flags. */
export interface FlagLinks {
  strategies: Pick<StrategyService, "ofFlags" | "prepareToEnable" | "moveFlag" | "removeInProject">;
  tags: Pick<FeatureTagService, "ofFlags" | "taggedAmong" | "attach">;
  dependencies: Pick<DependencyService, "parentsOf" | "childrenOf">;
  lifecycle: Pick<LifecycleService, "current" | "enter" | "restart">;
  favorites: Pick<FavoriteService, "features">;
  segments: Pick<SegmentService, "list">;
}

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

const metadata = (row: FeatureRow) => ({
  type: row.type,
  description: row.description,
  impressionData: row.impression_data,
  stale: row.stale,
  project: row.project,
});

const subject = (flag: { name: string; project: string }) => ({
  project: flag.project,
  featureName: flag.name,
});

/**
 * Flags (`features`) and their state in each environment (`feature_environments`): their
 * life from creation to deletion, their metadata, and the view that gathers what the other
 * flag sub-domains hold of them.
 */
export class FlagService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: Pick<ProjectService, "requireActive" | "environmentsOf">,
    private readonly links: () => FlagLinks,
  ) {}

  create(actor: Actor, projectId: string, input: CreateFeature): Promise<FeatureView> {
    return this.events.change(actor, async (change) => {
      const project = await this.projects.requireActive(change.db, projectId);
      await this.checkNameFree(change.db, input.name);
      checkFlagName(project.featureNaming, input.name);
      if (
        project.featureLimit !== null &&
        (await flagStore.countActive(change.db, project.id)) >= project.featureLimit
      ) {
        throw noAccess("You have reached the maximum number of feature flags for this project.");
      }
      const row = await flagStore.insert(change.db, {
        name: input.name,
        project: project.id,
        type: input.type ?? "release",
        description: input.description || null,
        impressionData: input.impressionData ?? false,
        createdBy: change.actor.name,
        createdByUserId: actorUserId(change.actor),
      });
      const environments = await this.projects.environmentsOf(change.db, project.id);
      await flagStore.addEnvironments(change.db, row.name, environments);
      // Kept as sent, weights unsettled, as the reference stores variants given here.
      if (input.variants?.length) {
        await flagStore.setVariants(change.db, row.name, environments, variantsAsSent(input.variants));
      }
      const { tags, lifecycle } = this.links();
      for (const tag of input.tags ?? [])
        await tags.attach(change, ref(row), { type: tag.type ?? "simple", value: tag.value });
      await lifecycle.enter(change.db, row.name, "initial");
      const view = await this.view(change.db, row);
      change.record({ type: "feature-created", ...subject(row), data: view });
      return view;
    });
  }

  async validateName(_actor: Actor, name: string): Promise<void> {
    await this.checkNameFree(this.db, name);
  }

  /** A flag, archived or not; of the project in the path when there is one. */
  async get(actor: Actor, projectId: string | undefined, name: string): Promise<FeatureView> {
    const row = await flagStore.find(this.db, name);
    if (!row || (projectId !== undefined && row.project !== projectId) || !canSee(actor, row.project)) {
      throw notFound(`Could not find feature flag ${name}`);
    }
    return this.view(this.db, row, await this.links().favorites.features(actor));
  }

  /** The active flags of those named that the actor may see, in the order named; the others are left out. */
  async activeViews(actor: Actor, names: string[]): Promise<FeatureView[]> {
    const order = new Map(names.map((name, index) => [name, index]));
    const rows = (await flagStore.activeNamed(this.db, names))
      .filter((row) => canSee(actor, row.project))
      .sort((a, b) => order.get(a.name)! - order.get(b.name)!);
    return featureViews(this.db, rows, this.links(), await this.links().favorites.features(actor));
  }

  async listProject(
    actor: Actor,
    projectId: string,
    filters: { namePrefix?: string; tags: string[] },
  ): Promise<ListingEntry[]> {
    let rows = await flagStore.inProject(this.db, projectId, filters.namePrefix);
    if (filters.tags.length > 0) {
      const names = rows.map((row) => row.name);
      const tagged = await this.links().tags.taggedAmong(this.db, names, filters.tags);
      rows = rows.filter((row) => tagged.has(row.name));
    }
    return listingEntries(this.db, rows, this.links(), await this.links().favorites.features(actor));
  }

  /**
   * The feature search: what the flags' own tables hold is filtered and sorted in SQL, then
   * tags, segments, lifecycle stages and favourites are asked of their sub-domains, and only
   * the page is read in full. Flags of projects hidden from the actor are never matched.
   */
  async search(actor: Actor, query: SearchQuery): Promise<SearchResult> {
    const plan = searchPlan(query, hiddenProjects(actor));
    const links = this.links();
    const favorites = await links.favorites.features(actor);
    let rows = await flagStore.search(this.db, plan.filter);
    const names = () => rows.map((row) => row.name);
    const { tags, segments, stage } = plan;
    if (tags) {
      const held = heldBy(await links.tags.ofFlags(this.db, names()), (tag) => `${tag.type}:${tag.value}`);
      rows = rows.filter((row) => tags(held(row.name)));
    }
    if (segments) {
      const named = await this.segmentNames(actor);
      const used = await links.strategies.ofFlags(this.db, names());
      const held = heldBy(
        used.flatMap(({ strategy }) =>
          strategy.segments.map((id) => ({ featureName: strategy.featureName, name: named.get(id) })),
        ),
        (use) => use.name,
      );
      rows = rows.filter((row) => segments(held(row.name)));
    }
    if (stage) {
      const stages = await links.lifecycle.current(this.db, names());
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
      links,
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
    const rows = (await flagStore.archived(this.db, projectId)).filter((row) => canSee(actor, row.project));
    return featureViews(this.db, rows, this.links(), await this.links().favorites.features(actor));
  }

  /** PUT and PATCH of a flag's metadata; a patch may also move the flag to another project. */
  update(actor: Actor, projectId: string, name: string, edit: UpdateFeature | PatchOperations) {
    return this.events.change(actor, async (change) => {
      const row = await this.requireRow(change.db, projectId, name);
      const before = metadata(row);
      const after = Array.isArray(edit)
        ? patched(PatchableFeature, before, edit)
        : { ...before, ...edit, project: before.project };
      const preData = await this.view(change.db, row);
      await flagStore.update(change.db, name, {
        type: after.type,
        description: after.description || null,
        impression_data: after.impressionData,
        stale: after.stale,
        // A new type has its own lifetime, and staleness set by hand replaces the guess: the
        // staleness job marks the flag again if it is still overdue.
        ...(after.type !== before.type || after.stale !== before.stale ? { potentially_stale: false } : {}),
      });
      if (after.project !== before.project) await this.move(change, row, after.project);
      const updated = await this.view(change.db, (await flagStore.find(change.db, name))!);
      if (
        after.type !== before.type ||
        after.description !== before.description ||
        after.impressionData !== before.impressionData
      ) {
        change.record({ type: "feature-metadata-updated", ...subject(row), data: updated, preData });
      }
      if (after.stale !== before.stale) this.recordStaleness(change, row, after.stale);
      // The event carries the flag as no one in particular sees it; the answer, as the caller does.
      return { ...updated, favorite: (await this.links().favorites.features(actor, change.db)).has(name) };
    });
  }

  async setStale(actor: Actor, projectId: string, names: string[], stale: boolean): Promise<void> {
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const row = await this.requireRow(change.db, projectId, name);
        if (row.stale === stale) continue;
        await flagStore.update(change.db, name, { stale, potentially_stale: false });
        this.recordStaleness(change, row, stale);
      }
    });
  }

  async archive(actor: Actor, projectId: string, names: string[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      const rows = await Promise.all(names.map((name) => this.requireRow(change.db, projectId, name)));
      for (const project of new Set(rows.map((row) => row.project))) await refuseUnreviewed(change, project);
      const leaving = new Set(names);
      const { dependencies, lifecycle } = this.links();
      const staying = (await dependencies.childrenOf(change.db, names)).filter(
        (link) => !leaving.has(link.child),
      );
      if (staying.length > 0) {
        const { parent, child } = staying[0]!;
        throw validationError(
          `${parent} cannot be archived while ${child} depends on it; archive or detach ${child} first`,
        );
      }
      for (const row of rows) {
        await flagStore.update(change.db, row.name, { archived_at: new Date() });
        await lifecycle.enter(change.db, row.name, "archived");
        change.record({ type: "feature-archived", ...subject(row) });
      }
    });
  }

  async revive(actor: Actor, projectId: string | undefined, names: string[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const row = await this.requireArchived(change, projectId, name, "UPDATE_FEATURE");
        await this.projects.requireActive(change.db, row.project);
        await flagStore.update(change.db, name, { archived_at: null });
        // As in the reference, a revived flag comes back switched off everywhere: reviving
        // serves nothing that no one reviewed, in environments that require change requests too.
        await flagStore.disableEverywhere(change.db, [name]);
        await this.links().lifecycle.restart(change.db, name);
        change.record({ type: "feature-revived", ...subject(row) });
      }
    });
  }

  /** Deletes archived flags for good. */
  async remove(actor: Actor, projectId: string | undefined, names: string[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const row = await this.requireArchived(change, projectId, name, "DELETE_FEATURE");
        const preData = await this.view(change.db, row);
        await flagStore.remove(change.db, [name]);
        change.record({ type: "feature-deleted", ...subject(row), preData });
      }
    });
  }

  /** Switches a flag on or off in one environment; "on" makes sure some strategy is active. */
  async setEnabled(
    actor: Actor,
    place: EnvironmentParams,
    enabled: boolean,
    activateDisabledStrategies: boolean,
  ): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      await flagStore.addEnvironments(change.db, flag.name, [place.environment]);
      if (enabled) {
        await this.links().strategies.prepareToEnable(
          change,
          flag,
          place.environment,
          activateDisabledStrategies,
        );
      }
      await this.switchEnvironment(change, flag, place.environment, enabled);
    });
  }

  // What the other flag sub-domains ask.

  async find(db: Db, name: string): Promise<FlagRef | undefined> {
    const row = await flagStore.find(db, name);
    return row && ref(row);
  }

  /**
   * An active flag, of the project in the path when there is one; archived flags and flags
   * of other projects are not found there, as in the reference.
   */
  async require(db: Db, projectId: string | undefined, name: string): Promise<FlagRef> {
    return ref(await this.requireRow(db, projectId, name));
  }

  /** An environment the flag's project uses. */
  async requireEnvironment(db: Db, flag: FlagRef, environment: string): Promise<void> {
    if (!(await this.projects.environmentsOf(db, flag.project)).includes(environment)) {
      throw notFound(`Environment ${environment} is not enabled in project ${flag.project}`);
    }
  }

  /** An active flag, in an environment its project uses. */
  async locate(db: Db, place: EnvironmentParams): Promise<FlagRef> {
    const flag = await this.require(db, place.projectId, place.featureName);
    await this.requireEnvironment(db, flag, place.environment);
    return flag;
  }

  /** Switches a flag on or off in one environment it has, recorded when that changes anything. */
  async switchEnvironment(
    change: Change,
    flag: FlagRef,
    environment: string,
    enabled: boolean,
  ): Promise<void> {
    const current = (await flagStore.environments(change.db, [flag.name])).find(
      (env) => env.environment === environment,
    );
    if (!current || current.enabled === enabled) return;
    await flagStore.setEnabled(change.db, flag.name, environment, enabled);
    change.record({
      type: enabled ? "feature-environment-enabled" : "feature-environment-disabled",
      ...subject(flag),
      environment,
    });
  }

  /** A flag's variants in each environment it has, in the environments' order. */
  variantsOf(db: Db, name: string): Promise<{ environment: string; variants: VariantRow[] }[]> {
    return flagStore.environments(db, [name]);
  }

  async setVariants(db: Db, name: string, environments: string[], variants: VariantRow[]): Promise<void> {
    await flagStore.addEnvironments(db, name, environments);
    await flagStore.setVariants(db, name, environments, variants);
  }

  activeAmong(db: Db, names: string[]): Promise<string[]> {
    return flagStore.activeAmong(db, names);
  }

  /**
   * What the staleness job asks: marks the flags of each type created before its cutoff as
   * potentially stale, once each, and returns those it marked.
   */
  async markPotentiallyStale(db: Db, cutoffs: { type: string; createdBefore: Date }[]): Promise<FlagRef[]> {
    return (await flagStore.markPotentiallyStale(db, cutoffs)).map(ref);
  }

  // What the projects and metrics domains ask.

  /** Every flag of a project, archived ones too, by name. */
  async inProject(db: Db, projectId: string): Promise<FlagRef[]> {
    return (await flagStore.allInProject(db, projectId)).map(ref);
  }

  /** Deletes a project's flags with it (by then only archived ones are left). */
  async removeWithProject(change: Change, projectId: string): Promise<void> {
    const names = (await this.inProject(change.db, projectId)).map((flag) => flag.name);
    await flagStore.remove(change.db, names);
    for (const featureName of names)
      change.record({ type: "feature-deleted", project: projectId, featureName });
  }

  /** A project's flags get a row in an environment the project starts using, disabled. */
  async joinEnvironment(db: Db, projectId: string, environment: string): Promise<void> {
    await flagStore.addProjectEnvironment(db, projectId, environment);
  }

  /** A project's flags lose their configuration in an environment the project stops using. */
  async leaveEnvironment(db: Db, projectId: string, environment: string): Promise<void> {
    await this.links().strategies.removeInProject(db, projectId, environment);
    await flagStore.removeProjectEnvironment(db, projectId, environment);
  }

  /** What a project's listing counts of its flags, per project. */
  figures(db: Db, projectIds: string[]) {
    return flagStore.figures(db, projectIds);
  }

  /** The flags among `names` switched on in the environment. */
  async enabledIn(db: Db, environment: string, names: string[]): Promise<string[]> {
    return (await flagStore.environments(db, names))
      .filter((row) => row.environment === environment && row.enabled)
      .map((row) => row.feature_name);
  }

  /** Stamps use on the flags the environment has; returns the active ones among them. */
  async markSeen(db: Db, environment: string, names: string[], at: Date): Promise<string[]> {
    return flagStore.activeAmong(db, await flagStore.markSeen(db, environment, names, at));
  }

  private async segmentNames(actor: Actor): Promise<Map<number, string>> {
    return new Map((await this.links().segments.list(actor)).map((segment) => [segment.id, segment.name]));
  }

  private view(db: Db, row: FeatureRow, favorites?: ReadonlySet<string>): Promise<FeatureView> {
    return featureViews(db, [row], this.links(), favorites).then((views) => views[0]!);
  }

  private async checkNameFree(db: Db, name: string): Promise<void> {
    const existing = await flagStore.find(db, name);
    if (existing?.archived_at) throw nameExists("An archived flag with that name already exists");
    if (existing) throw nameExists("A flag with that name already exists");
  }

  private async requireRow(db: Db, projectId: string | undefined, name: string): Promise<FeatureRow> {
    const row = await flagStore.find(db, name);
    if (!row || (projectId !== undefined && row.project !== projectId) || row.archived_at !== null) {
      throw notFound(`Could not find feature flag ${name}${projectId ? ` in project ${projectId}` : ""}`);
    }
    return row;
  }

  /** An archived flag; a path without a project leaves the flag's own to decide what the actor may do. */
  private async requireArchived(
    change: Change,
    projectId: string | undefined,
    name: string,
    permission: "UPDATE_FEATURE" | "DELETE_FEATURE",
  ): Promise<FeatureRow> {
    const row = await flagStore.find(change.db, name);
    if (!row || (projectId !== undefined && row.project !== projectId) || !canSee(change.actor, row.project))
      throw notFound(`Could not find feature flag ${name}`);
    if (projectId === undefined) requirePermission(change.actor, permission, { project: row.project });
    if (!row.archived_at) throw validationError(`${name} is not archived; archive it first`);
    return row;
  }

  private recordStaleness(change: Change, row: FeatureRow, stale: boolean): void {
    change.record(
      stale
        ? { type: "feature-stale-on", ...subject(row), data: { stale: true } }
        : { type: "feature-stale-off", ...subject(row), data: { stale: false } },
    );
  }

  /**
   * Moving a flag needs the permission in the project it leaves and in the one it joins. No
   * change request carries a move, as in the reference, so a project whose environments
   * require them neither gives nor takes flags but by those who may skip review there.
   */
  private async move(change: Change, row: FeatureRow, target: string): Promise<void> {
    requirePermission(change.actor, "MOVE_FEATURE_TOGGLE", { project: row.project });
    if (!canSee(change.actor, target)) throw notFound(`Active project with id ${target} does not exist`);
    requirePermission(change.actor, "MOVE_FEATURE_TOGGLE", { project: target });
    await this.projects.requireActive(change.db, target);
    const what = `Moving ${row.name} to project ${target}`;
    await refuseUnreviewable(change, what, row.project);
    await refuseUnreviewable(change, what, target);
    const { dependencies } = this.links();
    const linked =
      (await dependencies.parentsOf(change.db, [row.name])).length > 0 ||
      (await dependencies.childrenOf(change.db, [row.name])).length > 0;
    // A parent and its children share a project.
    if (linked) throw noAccess(`${what} is not allowed: the flag has dependencies. Remove them first.`);
    await flagStore.update(change.db, row.name, { project: target });
    await this.links().strategies.moveFlag(change.db, row.name, target);
    await flagStore.addEnvironments(
      change.db,
      row.name,
      await this.projects.environmentsOf(change.db, target),
    );
    change.record({
      type: "feature-project-change",
      project: target,
      featureName: row.name,
      data: { oldProject: row.project, newProject: target },
    });
  }
}
