import { ApiError, invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { VariantRow } from "../../db/schema.js";
import { type PatchOperations, patched } from "../../shared/json-patch.js";
import type { EventService, Tx } from "../events/service.js";
import { namingPattern } from "../projects/naming.js";
import { type ProjectLookup, requireEnvironment, requireFeature } from "./access.js";
import { PatchableFeature, Variants } from "./schemas.js";
import { type FeatureRow, featureStore } from "./store.js";
import type { FeatureTagService } from "./tags.js";
import { settleVariants, type VariantInput, variantsAsSent } from "./variants.js";
import { type FeatureView, featureViews, projectListing, strategyView } from "./view.js";

export interface NewFeature {
  name: string;
  type?: string;
  description?: string | null;
  impressionData?: boolean;
  tags?: { type?: string; value: string }[];
  variants?: VariantInput[];
}

export interface FeatureChanges {
  type?: string;
  description?: string | null;
  impressionData?: boolean;
  stale?: boolean;
  project?: string;
}

export type VariantChange = { variants: VariantInput[] } | { patch: PatchOperations };

const metadata = (row: FeatureRow): FeatureChanges => ({
  type: row.type,
  description: row.description,
  impressionData: row.impression_data,
  stale: row.stale,
  project: row.project,
});

const subject = (row: FeatureRow) => ({ project: row.project, featureName: row.name });

/** Switches a flag on or off in one environment it has, recorded when that changes anything. */
export async function switchEnvironment(
  tx: Tx,
  row: FeatureRow,
  environment: string,
  enabled: boolean,
  changedBy: string,
): Promise<void> {
  const current = (await featureStore.environments(tx.db, [row.name])).find(
    (env) => env.environment === environment,
  );
  if (!current || current.enabled === enabled) return;
  await featureStore.setEnabled(tx.db, row.name, environment, enabled);
  tx.record({
    type: enabled ? "feature-environment-enabled" : "feature-environment-disabled",
    createdBy: changedBy,
    ...subject(row),
    environment,
  });
}

/** Flags: their lifecycle from creation to deletion, their metadata, and their environments. */
export class FeatureService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: ProjectLookup,
    private readonly tags: FeatureTagService,
  ) {}

  async view(db: Db, row: FeatureRow): Promise<FeatureView> {
    return (await featureViews(db, [row]))[0]!;
  }

  async create(projectId: string, input: NewFeature, createdBy: string): Promise<FeatureView> {
    return this.events.transaction(async (tx) => {
      const project = await this.projects.requireActive(tx.db, projectId);
      await this.checkNameFree(tx.db, input.name);
      const { pattern, example, description } = project.featureNaming;
      const compiled = pattern ? namingPattern(pattern) : undefined;
      if (pattern && !compiled) {
        // Stored before patterns were read as RE2: say so rather than guess what it meant.
        throw invalidField(
          "name",
          `The project's naming pattern "${pattern}" is not valid RE2: change it in the project's settings first`,
        );
      }
      if (pattern && !compiled?.test(input.name)) {
        const hints = [example && `for example "${example}"`, description].filter(Boolean).join("; ");
        throw invalidField(
          "name",
          `The flag name must match the project's pattern "${pattern}"${hints ? ` (${hints})` : ""}`,
        );
      }
      if (
        project.featureLimit !== null &&
        (await featureStore.countActive(tx.db, project.id)) >= project.featureLimit
      ) {
        throw new ApiError(
          "InvalidOperationError",
          "You have reached the maximum number of feature flags for this project.",
        );
      }
      const row = await featureStore.insert(tx.db, {
        name: input.name,
        project: project.id,
        type: input.type ?? "release",
        description: input.description || null,
        impressionData: input.impressionData ?? false,
        createdBy,
      });
      const environments = await this.projects.environmentsOf(tx.db, project.id);
      await featureStore.addEnvironments(tx.db, row.name, environments);
      // Kept as sent, weights unsettled, as the reference stores variants given here.
      if (input.variants?.length) {
        await featureStore.setVariants(tx.db, row.name, environments, variantsAsSent(input.variants));
      }
      for (const tag of input.tags ?? [])
        await this.tags.attach(tx, row, tag.type ?? "simple", tag.value, createdBy);
      await featureStore.enterStage(tx.db, row.name, "initial");
      const view = await this.view(tx.db, row);
      tx.record({ type: "feature-created", createdBy, ...subject(row), data: view });
      return view;
    });
  }

  async validateName(name: string): Promise<void> {
    await this.checkNameFree(this.db, name);
  }

  private async checkNameFree(db: Db, name: string): Promise<void> {
    const existing = await featureStore.find(db, name);
    if (existing?.archived_at) throw nameExists("An archived flag with that name already exists");
    if (existing) throw nameExists("A flag with that name already exists");
  }

  async get(projectId: string | undefined, name: string): Promise<FeatureView> {
    const row = await featureStore.find(this.db, name);
    if (!row || (projectId !== undefined && row.project !== projectId)) {
      throw notFound(`Could not find feature flag ${name}`);
    }
    return this.view(this.db, row);
  }

  async listProject(projectId: string, filters: { namePrefix?: string; tags: string[] }) {
    let rows = await featureStore.inProject(this.db, projectId, filters.namePrefix);
    if (filters.tags.length > 0) {
      const tagged = new Set(
        (
          await featureStore.tags(
            this.db,
            rows.map((row) => row.name),
          )
        )
          .filter((tag) => filters.tags.includes(`${tag.tag_type}:${tag.tag_value}`))
          .map((tag) => tag.feature_name),
      );
      rows = rows.filter((row) => tagged.has(row.name));
    }
    return projectListing(this.db, rows);
  }

  async listArchived(projectId?: string): Promise<FeatureView[]> {
    return featureViews(this.db, await featureStore.archived(this.db, projectId));
  }

  /** PUT and PATCH of a flag's metadata; a patch may also move the flag to another project. */
  async update(projectId: string, name: string, change: FeatureChanges | PatchOperations, updatedBy: string) {
    return this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, name);
      const before = metadata(row);
      const after = Array.isArray(change)
        ? patched(PatchableFeature, before, change)
        : { ...before, ...change, project: before.project };
      const preData = await this.view(tx.db, row);
      await featureStore.update(tx.db, name, {
        type: after.type,
        description: after.description || null,
        impression_data: after.impressionData,
        stale: after.stale,
      });
      if (after.project !== before.project) await this.move(tx, row, String(after.project), updatedBy);
      const updated = await this.view(tx.db, (await featureStore.find(tx.db, name))!);
      if (
        after.type !== before.type ||
        after.description !== before.description ||
        after.impressionData !== before.impressionData
      ) {
        tx.record({
          type: "feature-metadata-updated",
          createdBy: updatedBy,
          ...subject(row),
          data: updated,
          preData,
        });
      }
      if (after.stale !== before.stale) {
        tx.record({
          type: after.stale ? "feature-stale-on" : "feature-stale-off",
          createdBy: updatedBy,
          ...subject(row),
          data: { stale: after.stale },
        });
      }
      return updated;
    });
  }

  async setStale(projectId: string, names: string[], stale: boolean, updatedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      for (const name of names) {
        const row = await requireFeature(tx.db, projectId, name);
        if (row.stale === stale) continue;
        await featureStore.update(tx.db, name, { stale });
        tx.record({
          type: stale ? "feature-stale-on" : "feature-stale-off",
          createdBy: updatedBy,
          ...subject(row),
          data: { stale },
        });
      }
    });
  }

  async archive(projectId: string, names: string[], archivedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const rows = await Promise.all(names.map((name) => requireFeature(tx.db, projectId, name)));
      const leaving = new Set(names);
      const children = (await featureStore.childrenOf(tx.db, names)).filter(
        (link) => !leaving.has(link.child),
      );
      if (children.length > 0) {
        const { parent, child } = children[0]!;
        throw validationError(
          `${parent} cannot be archived while ${child} depends on it; archive or detach ${child} first`,
        );
      }
      for (const row of rows) {
        await featureStore.update(tx.db, row.name, { archived_at: new Date() });
        await featureStore.enterStage(tx.db, row.name, "archived");
        tx.record({ type: "feature-archived", createdBy: archivedBy, ...subject(row) });
      }
    });
  }

  async revive(projectId: string | undefined, names: string[], revivedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      for (const name of names) {
        const row = await this.requireArchived(tx.db, projectId, name);
        await this.projects.requireActive(tx.db, row.project);
        await featureStore.update(tx.db, name, { archived_at: null });
        await featureStore.leaveStage(tx.db, name, "archived");
        tx.record({ type: "feature-revived", createdBy: revivedBy, ...subject(row) });
      }
    });
  }

  /** Deletes archived flags for good. */
  async remove(projectId: string | undefined, names: string[], deletedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      for (const name of names) {
        const row = await this.requireArchived(tx.db, projectId, name);
        const preData = await this.view(tx.db, row);
        await featureStore.remove(tx.db, name);
        tx.record({ type: "feature-deleted", createdBy: deletedBy, ...subject(row), preData });
      }
    });
  }

  /**
   * Switches a flag on or off in one environment. A flag switched on without an active
   * strategy gets a 100% rollout after its others, as in the reference, so that "on" means
   * on for everyone; unless its disabled strategies are to be activated instead.
   */
  async setEnabled(
    projectId: string,
    name: string,
    environment: string,
    enabled: boolean,
    changedBy: string,
    activateDisabledStrategies = false,
  ): Promise<void> {
    await this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, name);
      await requireEnvironment(tx.db, this.projects, row, environment);
      await featureStore.addEnvironments(tx.db, name, [environment]);
      if (enabled) {
        const strategies = await featureStore.strategies(tx.db, [name], environment);
        const disabled = strategies.filter((strategy) => strategy.disabled);
        if (activateDisabledStrategies) {
          for (const strategy of disabled) {
            const updated = await featureStore.updateStrategy(tx.db, strategy.id, { disabled: false });
            tx.record({
              type: "feature-strategy-update",
              createdBy: changedBy,
              ...subject(row),
              environment,
              data: strategyView(updated),
              preData: strategyView(strategy),
            });
          }
        }
        if (
          strategies.length === 0 ||
          (disabled.length === strategies.length && !activateDisabledStrategies)
        ) {
          const added = await featureStore.insertStrategy(tx.db, {
            id: crypto.randomUUID(),
            featureName: name,
            project: row.project,
            environment,
            name: "flexibleRollout",
            title: null,
            disabled: false,
            sortOrder: await featureStore.nextSortOrder(tx.db, name, environment),
            parameters: { rollout: "100", stickiness: "default", groupId: name },
            constraints: [],
            variants: [],
            segments: [],
          });
          tx.record({
            type: "feature-strategy-add",
            createdBy: changedBy,
            ...subject(row),
            environment,
            data: strategyView(added),
          });
        }
      }
      await switchEnvironment(tx, row, environment, enabled, changedBy);
    });
  }

  /** An environment the project does not use simply has no variants (the reference answers 200 too). */
  async environmentVariants(projectId: string, name: string, environment: string): Promise<VariantRow[]> {
    await requireFeature(this.db, projectId, name);
    const env = (await featureStore.environments(this.db, [name])).find(
      (entry) => entry.environment === environment,
    );
    return env?.variants ?? [];
  }

  /**
   * Replaces (or patches) the variants of some of a flag's environments, or of all of
   * them when `environments` is undefined: the reference's flag-level variants.
   */
  async setVariants(
    projectId: string,
    name: string,
    environments: string[] | undefined,
    change: VariantChange,
    changedBy: string,
  ): Promise<VariantRow[]> {
    return this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, name);
      const available = await this.projects.environmentsOf(tx.db, row.project);
      const targets = environments ?? available;
      for (const environment of targets) await requireEnvironment(tx.db, this.projects, row, environment);
      const current = await featureStore.environments(tx.db, [name]);
      const before = current.find((env) => env.environment === targets[0])?.variants ?? [];
      const wanted = "patch" in change ? patched(Variants, before, change.patch) : change.variants;
      const variants = settleVariants(wanted);
      await featureStore.addEnvironments(tx.db, name, targets);
      await featureStore.setVariants(tx.db, name, targets, variants);
      for (const environment of targets) {
        const preData = current.find((env) => env.environment === environment)?.variants ?? [];
        tx.record({
          type: environments ? "feature-environment-variants-updated" : "feature-variants-updated",
          createdBy: changedBy,
          ...subject(row),
          environment,
          data: { variants },
          preData: { variants: preData },
        });
      }
      return variants;
    });
  }

  /** Endpoint 15: archived flags keep their stages; an unknown project or flag is 404, as the spec says. */
  async lifecycle(projectId: string, name: string) {
    const flag = await featureStore.find(this.db, name);
    if (!flag || flag.project !== projectId) {
      throw notFound(`Could not find feature flag ${name} in project ${projectId}`);
    }
    const rows = await featureStore.lifecycle(this.db, [name]);
    return rows.map((row) => ({
      stage: row.stage,
      ...(row.status ? { status: row.status } : {}),
      enteredStageAt: row.created_at.toISOString(),
    }));
  }

  async complete(
    projectId: string,
    name: string,
    status: "kept" | "discarded",
    statusValue: string | undefined,
    by: string,
  ) {
    await this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, name);
      await featureStore.enterStage(tx.db, name, "completed", status, statusValue ?? null);
      tx.record({
        type: "feature-completed",
        createdBy: by,
        ...subject(row),
        data: { status, statusValue, kept: status === "kept" },
      });
    });
  }

  async uncomplete(projectId: string, name: string, by: string) {
    await this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, name);
      await featureStore.leaveStage(tx.db, name, "completed");
      tx.record({ type: "feature-uncompleted", createdBy: by, ...subject(row) });
    });
  }

  private async requireArchived(db: Db, projectId: string | undefined, name: string): Promise<FeatureRow> {
    const row = await featureStore.find(db, name);
    if (!row || (projectId !== undefined && row.project !== projectId))
      throw notFound(`Could not find feature flag ${name}`);
    if (!row.archived_at) throw validationError(`${name} is not archived; archive it first`);
    return row;
  }

  private async move(tx: Tx, row: FeatureRow, target: string, movedBy: string): Promise<void> {
    await this.projects.requireActive(tx.db, target);
    await featureStore.update(tx.db, row.name, { project: target });
    await featureStore.moveToProject(tx.db, row.name, target);
    await featureStore.addEnvironments(tx.db, row.name, await this.projects.environmentsOf(tx.db, target));
    tx.record({
      type: "feature-project-change",
      createdBy: movedBy,
      project: target,
      featureName: row.name,
      data: { oldProject: row.project, newProject: target },
    });
  }
}
