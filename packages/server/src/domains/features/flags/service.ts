import { nameExists, noAccess, notFound, validationError } from "@signalbox/protocol";
import { type Actor, actorUserId } from "../../../access/actor.js";
import { canSee, requirePermission } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { VariantRow } from "../../../db/schema.js";
import type { Change, EventService } from "../../events/service.js";
import { checkFlagName } from "../../projects/naming.js";
import type { ProjectService } from "../../projects/service.js";
import type { EnvironmentParams } from "../params.js";
import type {} from "./events.js";
import type { FlagSearch } from "./search-filter.js";
import { type FeatureRow, flagStore } from "./store.js";

/** A flag's row as stored: what the flag view shows of the flag itself. */
export type FlagRow = FeatureRow;

/** A flag as the other sub-domains and domains see it. */
export interface FlagRef {
  name: string;
  project: string;
  archived: boolean;
}

/** What a flag's edit replaces: its metadata, and the project it lives in. */
export interface FlagMetadata {
  type: string;
  description: string | null;
  impressionData: boolean;
  stale: boolean;
  project: string;
}

/** A new flag's own row; its variants, set in every environment, are already in stored form. */
export interface NewFlag {
  name: string;
  type?: string | undefined;
  description?: string | null | undefined;
  impressionData?: boolean | undefined;
  variants?: VariantRow[] | undefined;
}

const ref = (row: Pick<FeatureRow, "name" | "project" | "archived_at">): FlagRef => ({
  name: row.name,
  project: row.project,
  archived: row.archived_at !== null,
});

const subject = (flag: { name: string; project: string }) => ({
  project: flag.project,
  featureName: flag.name,
});

/**
 * Flags (`features`) and their state in each environment (`feature_environments`): the flag
 * itself, from its row's creation to its deletion. What spans the parts that hang off a flag
 * (strategies, tags, dependencies, lifecycle) is the flag editing's; its full view, the flag
 * view's. The parts ask flags about the flag they work on, never the reverse.
 */
export class FlagService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: Pick<ProjectService, "requireActive" | "environmentsOf">,
  ) {}

  async validateName(_actor: Actor, name: string): Promise<void> {
    await this.checkNameFree(this.db, name);
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

  // The flag's row, as the flag editing creates, edits, archives, revives and deletes it.

  /**
   * Creates a flag of an active project, in each of the project's environments, within the
   * project's naming pattern and flag limit. The caller records it, with its parts.
   */
  async create(change: Change, projectId: string, flag: NewFlag): Promise<FlagRef> {
    const project = await this.projects.requireActive(change.db, projectId);
    await this.checkNameFree(change.db, flag.name);
    checkFlagName(project.featureNaming, flag.name);
    if (
      project.featureLimit !== null &&
      (await flagStore.countActive(change.db, project.id)) >= project.featureLimit
    ) {
      throw noAccess("You have reached the maximum number of feature flags for this project.");
    }
    const row = await flagStore.insert(change.db, {
      name: flag.name,
      project: project.id,
      type: flag.type ?? "release",
      description: flag.description || null,
      impressionData: flag.impressionData ?? false,
      createdBy: change.actor.name,
      createdByUserId: actorUserId(change.actor),
    });
    const environments = await this.projects.environmentsOf(change.db, project.id);
    await flagStore.addEnvironments(change.db, row.name, environments);
    if (flag.variants?.length) await flagStore.setVariants(change.db, row.name, environments, flag.variants);
    return ref(row);
  }

  /** An active flag's metadata, of the project in the path when there is one. */
  async metadataOf(db: Db, projectId: string | undefined, name: string): Promise<FlagMetadata> {
    const row = await this.requireRow(db, projectId, name);
    return {
      type: row.type,
      description: row.description,
      impressionData: row.impression_data,
      stale: row.stale,
      project: row.project,
    };
  }

  /** Writes a flag's metadata; the caller records the edit. */
  async setMetadata(db: Db, name: string, before: FlagMetadata, after: FlagMetadata): Promise<void> {
    await flagStore.update(db, name, {
      type: after.type,
      description: after.description || null,
      impression_data: after.impressionData,
      stale: after.stale,
      // A new type has its own lifetime, and staleness set by hand replaces the guess: the
      // staleness job marks the flag again if it is still overdue.
      ...(after.type !== before.type || after.stale !== before.stale ? { potentially_stale: false } : {}),
    });
  }

  recordStaleness(change: Change, flag: { name: string; project: string }, stale: boolean): void {
    change.record(
      stale
        ? { type: "feature-stale-on", ...subject(flag), data: { stale: true } }
        : { type: "feature-stale-off", ...subject(flag), data: { stale: false } },
    );
  }

  /** Moves a flag's row to another project, which it joins in each of its environments. */
  async move(change: Change, flag: { name: string; project: string }, target: string): Promise<void> {
    await flagStore.update(change.db, flag.name, { project: target });
    await flagStore.addEnvironments(
      change.db,
      flag.name,
      await this.projects.environmentsOf(change.db, target),
    );
    change.record({
      type: "feature-project-change",
      project: target,
      featureName: flag.name,
      data: { oldProject: flag.project, newProject: target },
    });
  }

  async archive(change: Change, flag: FlagRef): Promise<void> {
    await flagStore.update(change.db, flag.name, { archived_at: new Date() });
    change.record({ type: "feature-archived", ...subject(flag) });
  }

  async revive(change: Change, projectId: string | undefined, name: string): Promise<FlagRef> {
    const flag = await this.requireArchived(change, projectId, name, "UPDATE_FEATURE");
    await this.projects.requireActive(change.db, flag.project);
    await flagStore.update(change.db, name, { archived_at: null });
    // As in the reference, a revived flag comes back switched off everywhere: reviving
    // serves nothing that no one reviewed, in environments that require change requests too.
    await flagStore.disableEverywhere(change.db, [name]);
    change.record({ type: "feature-revived", ...subject(flag) });
    return { ...flag, archived: false };
  }

  /** An archived flag; a path without a project leaves the flag's own to decide what the actor may do. */
  async requireArchived(
    change: Change,
    projectId: string | undefined,
    name: string,
    permission: "UPDATE_FEATURE" | "DELETE_FEATURE",
  ): Promise<FlagRef> {
    const row = await flagStore.find(change.db, name);
    if (!row || (projectId !== undefined && row.project !== projectId) || !canSee(change.actor, row.project))
      throw notFound(`Could not find feature flag ${name}`);
    if (projectId === undefined) requirePermission(change.actor, permission, { project: row.project });
    if (!row.archived_at) throw validationError(`${name} is not archived; archive it first`);
    return ref(row);
  }

  /** Deletes a flag for good, with what its parts hold of it; the caller records it. */
  async remove(db: Db, name: string): Promise<void> {
    await flagStore.remove(db, [name]);
  }

  // What the flag view reads: the rows as stored, which it shows with what the parts hold.

  row(db: Db, name: string): Promise<FlagRow | undefined> {
    return flagStore.find(db, name);
  }

  activeRows(db: Db, names: string[]): Promise<FlagRow[]> {
    return flagStore.activeNamed(db, names);
  }

  /** A project's active flags, by name prefix. */
  rowsInProject(db: Db, projectId: string, namePrefix: string | undefined): Promise<FlagRow[]> {
    return flagStore.inProject(db, projectId, namePrefix);
  }

  /** Archived flags, of one project or of all. */
  archivedRows(db: Db, projectId: string | undefined): Promise<FlagRow[]> {
    return flagStore.archived(db, projectId);
  }

  /** The feature search's matches among the flags' own columns, in its order. */
  searchRows(db: Db, search: FlagSearch): Promise<FlagRow[]> {
    return flagStore.search(db, search);
  }

  /** The flags' state in each environment they have, with the environments' type and order. */
  states(db: Db, names: string[]) {
    return flagStore.environments(db, names);
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

  /** Gives a flag its state in an environment of its project, should it have none yet. */
  async addEnvironment(db: Db, flag: FlagRef, environment: string): Promise<void> {
    await flagStore.addEnvironments(db, flag.name, [environment]);
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

  /**
   * A project's flags lose their state in an environment the project stops using. Their
   * strategies there are the strategies' to remove (StrategyService.removeInProject).
   */
  async leaveEnvironment(db: Db, projectId: string, environment: string): Promise<void> {
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
}
