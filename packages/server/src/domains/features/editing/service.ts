import { noAccess, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee, requirePermission } from "../../../access/can.js";
import { type PatchOperations, patched } from "../../../shared/json-patch.js";
import { refuseUnreviewable, refuseUnreviewed } from "../../change-gate/gate.js";
import type { Change, EventService } from "../../events/service.js";
import type { FavoriteService } from "../../favorites/service.js";
import type { ProjectService } from "../../projects/service.js";
import type { DependencyService } from "../dependencies/service.js";
import { PatchableFeature, type UpdateFeature } from "../flags/schemas.js";
import type { FlagMetadata, FlagService } from "../flags/service.js";
import type { LifecycleService } from "../lifecycle/service.js";
import type { EnvironmentParams } from "../params.js";
import type { StrategyService } from "../strategies/service.js";
import type { FeatureTagService } from "../tags/service.js";
import { variantsAsSent } from "../variants/weights.js";
import type { FeatureView } from "../view/schemas.js";
import type { FlagViewService } from "../view/service.js";
import type {} from "./events.js";
import type { CreateFeature } from "./schemas.js";

/** What editing a flag reaches: the flag itself, the parts that hang off it, and its view. */
export interface FlagEditingLinks {
  flags: Pick<
    FlagService,
    | "create"
    | "metadataOf"
    | "setMetadata"
    | "recordStaleness"
    | "move"
    | "require"
    | "archive"
    | "revive"
    | "requireArchived"
    | "remove"
    | "locateAll"
    | "addEnvironment"
    | "switchEnvironments"
  >;
  projects: Pick<ProjectService, "requireActive">;
  strategies: Pick<StrategyService, "prepareToEnable" | "moveFlag">;
  tags: Pick<FeatureTagService, "attachAll">;
  dependencies: Pick<DependencyService, "parentsOf" | "childrenOf" | "dropParent">;
  lifecycle: Pick<LifecycleService, "enter" | "enterAll" | "restart">;
  favorites: Pick<FavoriteService, "features">;
  views: Pick<FlagViewService, "of" | "ofAll">;
}

const subject = (flag: { name: string; project: string }) => ({
  project: flag.project,
  featureName: flag.name,
});

/**
 * What people do to a flag that reaches beyond its own row: create it with its tags and
 * first lifecycle stage, edit or move it, switch it on where it needs a strategy to serve,
 * archive, revive and delete it. Events that carry the flag carry its full view, read after
 * the change (and before, for what it replaces).
 */
export class FlagEditingService {
  constructor(
    private readonly events: EventService,
    private readonly links: FlagEditingLinks,
  ) {}

  async create(actor: Actor, projectId: string, input: CreateFeature): Promise<FeatureView> {
    const [view] = await this.createAll(actor, projectId, [input]);
    return view!;
  }

  /**
   * Creates flags as `create` creates each, written together: an import's thousands take a
   * few statements. The events of each flag come in the order `create` records them.
   */
  createAll(actor: Actor, projectId: string, inputs: CreateFeature[]): Promise<FeatureView[]> {
    const { flags, tags, lifecycle, views } = this.links;
    return this.events.change(actor, async (change) => {
      const created = await flags.create(
        change,
        projectId,
        inputs.map((input) => ({
          name: input.name,
          type: input.type,
          description: input.description,
          impressionData: input.impressionData,
          // Kept as sent, weights unsettled, as the reference stores variants given here.
          variants: input.variants && variantsAsSent(input.variants),
        })),
      );
      await tags.attachAll(
        change,
        inputs.flatMap((input, index) =>
          (input.tags ?? []).map((tag) => ({
            flag: created[index]!,
            tag: { type: tag.type ?? "simple", value: tag.value },
          })),
        ),
      );
      const names = created.map((flag) => flag.name);
      await lifecycle.enterAll(change.db, names, "initial");
      const createdViews = await views.ofAll(change.db, names);
      for (const [index, view] of createdViews.entries()) {
        change.record({ type: "feature-created", ...subject(created[index]!), data: view });
      }
      return createdViews;
    });
  }

  /** PUT and PATCH of a flag's metadata; a patch may also move the flag to another project. */
  update(actor: Actor, projectId: string, name: string, edit: UpdateFeature | PatchOperations) {
    const { flags, favorites } = this.links;
    return this.events.change(actor, async (change) => {
      const [before] = await flags.metadataOf(change.db, projectId, [name]);
      const after = Array.isArray(edit)
        ? patched(PatchableFeature, before!, edit)
        : { ...before!, ...edit, project: before!.project };
      const [updated] = await this.edit(change, [{ name, before: before!, after }]);
      // The event carries the flag as no one in particular sees it; the answer, as the caller does.
      return { ...updated!, favorite: (await favorites.features(actor, change.db)).has(name) };
    });
  }

  /** PUTs of several flags' metadata, each flag named once, written together. */
  async updateAll(actor: Actor, projectId: string, edits: { name: string; edit: UpdateFeature }[]) {
    const { flags } = this.links;
    await this.events.change(actor, async (change) => {
      const before = await flags.metadataOf(
        change.db,
        projectId,
        edits.map((entry) => entry.name),
      );
      await this.edit(
        change,
        edits.map(({ name, edit }, index) => ({
          name,
          before: before[index]!,
          after: { ...before[index]!, ...edit, project: before[index]!.project },
        })),
      );
    });
  }

  /** A parent is archived with its active children or not at all: they would depend on nothing. */
  async archive(actor: Actor, projectId: string, names: string[]): Promise<void> {
    const { flags, dependencies, lifecycle } = this.links;
    await this.events.change(actor, async (change) => {
      const archived = await Promise.all(names.map((name) => flags.require(change.db, projectId, name)));
      for (const project of new Set(archived.map((flag) => flag.project)))
        await refuseUnreviewed(change, project);
      const leaving = new Set(names);
      const staying = (await dependencies.childrenOf(change.db, names)).filter(
        (link) => !leaving.has(link.child),
      );
      if (staying.length > 0) {
        const { parent, child } = staying[0]!;
        throw validationError(
          `${parent} cannot be archived while ${child} depends on it; archive or detach ${child} first`,
        );
      }
      for (const flag of archived) {
        await flags.archive(change, flag);
        await lifecycle.enter(change.db, flag.name, "archived");
      }
    });
  }

  async revive(actor: Actor, projectId: string | undefined, names: string[]): Promise<void> {
    const { flags, lifecycle } = this.links;
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        await flags.revive(change, projectId, name);
        await lifecycle.restart(change.db, name);
      }
    });
  }

  /** Deletes archived flags for good. */
  async remove(actor: Actor, projectId: string | undefined, names: string[]): Promise<void> {
    const { flags, views, dependencies } = this.links;
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const flag = await flags.requireArchived(change, projectId, name, "DELETE_FEATURE");
        const preData = await views.of(change.db, name);
        await dependencies.dropParent(change, name);
        await flags.remove(change.db, name);
        change.record({ type: "feature-deleted", ...subject(flag), preData });
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
    const { projectId, environment, featureName } = place;
    await this.setEnabledAll(
      actor,
      projectId,
      environment,
      [{ featureName, enabled }],
      activateDisabledStrategies,
    );
  }

  /** Switches flags of a project on or off in one environment, one after the other as `setEnabled` would, written together. */
  async setEnabledAll(
    actor: Actor,
    projectId: string,
    environment: string,
    entries: { featureName: string; enabled: boolean }[],
    activateDisabledStrategies: boolean,
  ): Promise<void> {
    const { flags, strategies } = this.links;
    await this.events.change(actor, async (change) => {
      const found = await flags.locateAll(
        change.db,
        projectId,
        environment,
        entries.map((entry) => entry.featureName),
      );
      await refuseUnreviewed(change, projectId, [environment]);
      await flags.addEnvironment(change.db, found, environment);
      await strategies.prepareToEnable(
        change,
        found.filter((_, index) => entries[index]!.enabled),
        environment,
        activateDisabledStrategies,
      );
      await flags.switchEnvironments(
        change,
        environment,
        entries.map((entry, index) => ({ flag: found[index]!, enabled: entry.enabled })),
      );
    });
  }

  /**
   * Writes flags' metadata, each named once, and moves those whose project changes; each
   * edit is recorded with the flag's view before and after. Returns the views after.
   */
  private async edit(
    change: Change,
    edits: { name: string; before: FlagMetadata; after: FlagMetadata }[],
  ): Promise<FeatureView[]> {
    const { flags, views } = this.links;
    const names = edits.map((entry) => entry.name);
    const preData = await views.ofAll(change.db, names);
    await flags.setMetadata(change.db, edits);
    for (const { name, before, after } of edits) {
      if (after.project !== before.project)
        await this.move(change, { name, project: before.project }, after.project);
    }
    const updated = await views.ofAll(change.db, names);
    edits.forEach(({ name, before, after }, index) => {
      const flag = { name, project: before.project };
      if (
        after.type !== before.type ||
        after.description !== before.description ||
        after.impressionData !== before.impressionData
      ) {
        change.record({
          type: "feature-metadata-updated",
          ...subject(flag),
          data: updated[index]!,
          preData: preData[index]!,
        });
      }
      if (after.stale !== before.stale) flags.recordStaleness(change, flag, after.stale);
    });
    return updated;
  }

  /**
   * Moving a flag needs the permission in the project it leaves and in the one it joins. No
   * change request carries a move, as in the reference, so a project whose environments
   * require them neither gives nor takes flags but by those who may skip review there. A
   * parent and its children share a project, so a flag with either stays where it is.
   */
  private async move(change: Change, flag: { name: string; project: string }, target: string): Promise<void> {
    const { flags, projects, strategies, dependencies } = this.links;
    requirePermission(change.actor, "MOVE_FEATURE_TOGGLE", { project: flag.project });
    if (!canSee(change.actor, target)) throw notFound(`Active project with id ${target} does not exist`);
    requirePermission(change.actor, "MOVE_FEATURE_TOGGLE", { project: target });
    await projects.requireActive(change.db, target);
    const what = `Moving ${flag.name} to project ${target}`;
    await refuseUnreviewable(change, what, flag.project);
    await refuseUnreviewable(change, what, target);
    const linked =
      (await dependencies.parentsOf(change.db, [flag.name])).length > 0 ||
      (await dependencies.childrenOf(change.db, [flag.name])).length > 0;
    if (linked) throw noAccess(`${what} is not allowed: the flag has dependencies. Remove them first.`);
    await flags.move(change, flag, target);
    await strategies.moveFlag(change.db, flag.name, target);
  }
}
