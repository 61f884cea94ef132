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
    refuseTaken(await flagStore.find(this.db, name));
  }

  async setStale(actor: Actor, projectId: string, names: string[], stale: boolean): Promise<void> {
    await this.events.change(actor, async (change) => {
      const changed = new Map<string, FeatureRow>();
      for (const row of await this.requireRows(change.db, projectId, names)) {
        if (row.stale !== stale) changed.set(row.name, row);
      }
      if (changed.size === 0) return;
      await flagStore.update(change.db, [...changed.keys()], { stale, potentially_stale: false });
      for (const row of changed.values()) this.recordStaleness(change, row, stale);
    });
  }

  // The flag's row, as the flag editing creates, edits, archives, revives and deletes it.

  /**
   * Creates flags of an active project, each in every one of the project's environments,
   * within the project's naming pattern and flag limit: checked one after the other, as if
   * created one at a time, and written together. The caller records them, with their parts.
   */
  async create(change: Change, projectId: string, flags: NewFlag[]): Promise<FlagRef[]> {
    const project = await this.projects.requireActive(change.db, projectId);
    const names = flags.map((flag) => flag.name);
    const taken = new Map<string, Pick<FeatureRow, "archived_at">>(
      (await flagStore.named(change.db, names)).map((row) => [row.name, row]),
    );
    let active = project.featureLimit === null ? 0 : await flagStore.countActive(change.db, project.id);
    for (const flag of flags) {
      refuseTaken(taken.get(flag.name));
      checkFlagName(project.featureNaming, flag.name);
      if (project.featureLimit !== null && active >= project.featureLimit) {
        throw noAccess("You have reached the maximum number of feature flags for this project.");
      }
      active += 1;
      taken.set(flag.name, { archived_at: null });
    }
    const rows = await flagStore.insert(
      change.db,
      flags.map((flag) => ({
        name: flag.name,
        project: project.id,
        type: flag.type ?? "release",
        description: flag.description || null,
        impressionData: flag.impressionData ?? false,
        createdBy: change.actor.name,
        createdByUserId: actorUserId(change.actor),
      })),
    );
    const environments = await this.projects.environmentsOf(change.db, project.id);
    await flagStore.addEnvironments(change.db, names, environments);
    await flagStore.setVariants(
      change.db,
      flags.flatMap((flag) => (flag.variants?.length ? [{ name: flag.name, variants: flag.variants }] : [])),
      environments,
    );
    const created = new Map(rows.map((row) => [row.name, ref(row)]));
    return names.map((name) => created.get(name)!);
  }

  /** Active flags' metadata, of the project in the path when there is one, in the order named. */
  async metadataOf(db: Db, projectId: string | undefined, names: string[]): Promise<FlagMetadata[]> {
    return (await this.requireRows(db, projectId, names)).map((row) => ({
      type: row.type,
      description: row.description,
      impressionData: row.impression_data,
      stale: row.stale,
      project: row.project,
    }));
  }

  /** Writes flags' metadata, each flag named once; the caller records the edits. */
  async setMetadata(
    db: Db,
    edits: { name: string; before: FlagMetadata; after: FlagMetadata }[],
  ): Promise<void> {
    await flagStore.setMetadata(
      db,
      edits.map(({ name, before, after }) => ({
        name,
        type: after.type,
        description: after.description || null,
        impression_data: after.impressionData,
        stale: after.stale,
        // A new type has its own lifetime, and staleness set by hand replaces the guess: the
        // staleness job marks the flag again if it is still overdue.
        reset: after.type !== before.type || after.stale !== before.stale,
      })),
    );
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
    await flagStore.update(change.db, [flag.name], { project: target });
    await flagStore.addEnvironments(
      change.db,
      [flag.name],
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
    await flagStore.update(change.db, [flag.name], { archived_at: new Date() });
    change.record({ type: "feature-archived", ...subject(flag) });
  }

  async revive(change: Change, projectId: string | undefined, name: string): Promise<FlagRef> {
    const flag = await this.requireArchived(change, projectId, name, "UPDATE_FEATURE");
    await this.projects.requireActive(change.db, flag.project);
    await flagStore.update(change.db, [name], { archived_at: null });
    // As in the reference, a revived flag comes back switched off everywhere: reviving
    // serves nothing that no one reviewed, in environments that require change requests too.
    // Where it was on is kept with the event, so that its history can be undone.
    const enabledIn = (await flagStore.environments(change.db, [name]))
      .filter((row) => row.enabled)
      .map((row) => row.environment);
    await flagStore.disableEverywhere(change.db, [name]);
    change.record({ type: "feature-revived", ...subject(flag), preData: { enabledIn } });
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

  /** The rows of the flags among `names` that exist, archived ones too, in no particular order. */
  rows(db: Db, names: string[]): Promise<FlagRow[]> {
    return flagStore.named(db, names);
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

  /** A page of those matches, and how many there are in all. */
  searchPage(db: Db, search: FlagSearch, page: { offset: number; limit: number }) {
    return flagStore.searchPage(db, search, page);
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

  /** The flags among `names` that exist, archived ones too, by name. */
  async findAll(db: Db, names: string[]): Promise<Map<string, FlagRef>> {
    return new Map((await flagStore.named(db, names)).map((row) => [row.name, ref(row)]));
  }

  /**
   * An active flag, of the project in the path when there is one; archived flags and flags
   * of other projects are not found there, as in the reference.
   */
  async require(db: Db, projectId: string | undefined, name: string): Promise<FlagRef> {
    const [flag] = await this.requireAll(db, projectId, [name]);
    return flag!;
  }

  /** Active flags, as `require` finds each, in the order named: the first not found is the error. */
  async requireAll(db: Db, projectId: string | undefined, names: string[]): Promise<FlagRef[]> {
    return (await this.requireRows(db, projectId, names)).map(ref);
  }

  /** An environment the flag's project uses. */
  async requireEnvironment(db: Db, flag: FlagRef, environment: string): Promise<void> {
    if (!(await this.projects.environmentsOf(db, flag.project)).includes(environment)) {
      throw notFound(`Environment ${environment} is not enabled in project ${flag.project}`);
    }
  }

  /** An active flag, in an environment its project uses. */
  async locate(db: Db, place: EnvironmentParams): Promise<FlagRef> {
    const [flag] = await this.locateAll(db, place.projectId, place.environment, [place.featureName]);
    return flag!;
  }

  /** Active flags of the project, as `locate` finds each, in an environment the project uses. */
  async locateAll(db: Db, projectId: string, environment: string, names: string[]): Promise<FlagRef[]> {
    const flags = await this.requireAll(db, projectId, names);
    const [first] = flags;
    if (first) await this.requireEnvironment(db, first, environment);
    return flags;
  }

  /** Gives flags their state in an environment of their project, should they have none yet. */
  async addEnvironment(db: Db, flags: FlagRef[], environment: string): Promise<void> {
    await flagStore.addEnvironments(
      db,
      flags.map((flag) => flag.name),
      [environment],
    );
  }

  /** Switches a flag on or off in one environment it has, recorded when that changes anything. */
  switchEnvironment(change: Change, flag: FlagRef, environment: string, enabled: boolean): Promise<void> {
    return this.switchEnvironments(change, environment, [{ flag, enabled }]);
  }

  /**
   * Switches flags on or off in one environment, one after the other as the entries say (a
   * flag may be named more than once), written together; each switch that changes anything
   * is recorded.
   */
  async switchEnvironments(
    change: Change,
    environment: string,
    entries: { flag: FlagRef; enabled: boolean }[],
  ): Promise<void> {
    const names = entries.map((entry) => entry.flag.name);
    const state = new Map(
      (await flagStore.environments(change.db, names))
        .filter((row) => row.environment === environment)
        .map((row) => [row.feature_name, row.enabled]),
    );
    const switched: typeof entries = [];
    const final = new Map<string, boolean>();
    for (const entry of entries) {
      const current = state.get(entry.flag.name);
      if (current === undefined || current === entry.enabled) continue;
      state.set(entry.flag.name, entry.enabled);
      final.set(entry.flag.name, entry.enabled);
      switched.push(entry);
    }
    for (const enabled of [true, false]) {
      const names = [...final].filter(([, value]) => value === enabled).map(([name]) => name);
      if (names.length > 0) await flagStore.setEnabled(change.db, names, environment, enabled);
    }
    for (const { flag, enabled } of switched) {
      change.record({
        type: enabled ? "feature-environment-enabled" : "feature-environment-disabled",
        ...subject(flag),
        environment,
      });
    }
  }

  /** A flag's variants in each environment it has, in the environments' order. */
  variantsOf(db: Db, name: string): Promise<{ environment: string; variants: VariantRow[] }[]> {
    return flagStore.environments(db, [name]);
  }

  /** Sets flags' variants in the environments, the last entry of a flag winning; gives them a row there first. */
  async setVariants(
    db: Db,
    entries: { name: string; variants: VariantRow[] }[],
    environments: string[],
  ): Promise<void> {
    const last = new Map(entries.map((entry) => [entry.name, entry.variants]));
    await flagStore.addEnvironments(db, [...last.keys()], environments);
    await flagStore.setVariants(
      db,
      [...last].map(([name, variants]) => ({ name, variants })),
      environments,
    );
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

  /** Stamps use on the flags the environment has, each named once; returns the active ones among them. */
  async markSeen(db: Db, environment: string, seen: { name: string; at: Date }[]): Promise<string[]> {
    return flagStore.activeAmong(db, await flagStore.markSeen(db, environment, seen));
  }

  private async requireRows(db: Db, projectId: string | undefined, names: string[]): Promise<FeatureRow[]> {
    const rows = new Map((await flagStore.named(db, names)).map((row) => [row.name, row]));
    return names.map((name) => {
      const row = rows.get(name);
      if (!row || (projectId !== undefined && row.project !== projectId) || row.archived_at !== null) {
        throw notFound(`Could not find feature flag ${name}${projectId ? ` in project ${projectId}` : ""}`);
      }
      return row;
    });
  }
}

/** A name a flag has, archived or not, is taken. */
function refuseTaken(existing: Pick<FeatureRow, "archived_at"> | undefined): void {
  if (existing?.archived_at) throw nameExists("An archived flag with that name already exists");
  if (existing) throw nameExists("A flag with that name already exists");
}
