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
import type { FlagService } from "../flags/service.js";
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
    | "locate"
    | "addEnvironment"
    | "switchEnvironment"
  >;
  projects: Pick<ProjectService, "requireActive">;
  strategies: Pick<StrategyService, "prepareToEnable" | "moveFlag">;
  tags: Pick<FeatureTagService, "attach">;
  dependencies: Pick<DependencyService, "parentsOf" | "childrenOf">;
  lifecycle: Pick<LifecycleService, "enter" | "restart">;
  favorites: Pick<FavoriteService, "features">;
  views: Pick<FlagViewService, "of">;
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

  create(actor: Actor, projectId: string, input: CreateFeature): Promise<FeatureView> {
    const { flags, tags, lifecycle, views } = this.links;
    return this.events.change(actor, async (change) => {
      const flag = await flags.create(change, projectId, {
        name: input.name,
        type: input.type,
        description: input.description,
        impressionData: input.impressionData,
        // Kept as sent, weights unsettled, as the reference stores variants given here.
        variants: input.variants && variantsAsSent(input.variants),
      });
      for (const tag of input.tags ?? [])
        await tags.attach(change, flag, { type: tag.type ?? "simple", value: tag.value });
      await lifecycle.enter(change.db, flag.name, "initial");
      const view = await views.of(change.db, flag.name);
      change.record({ type: "feature-created", ...subject(flag), data: view });
      return view;
    });
  }

  /** PUT and PATCH of a flag's metadata; a patch may also move the flag to another project. */
  update(actor: Actor, projectId: string, name: string, edit: UpdateFeature | PatchOperations) {
    const { flags, favorites, views } = this.links;
    return this.events.change(actor, async (change) => {
      const before = await flags.metadataOf(change.db, projectId, name);
      const after = Array.isArray(edit)
        ? patched(PatchableFeature, before, edit)
        : { ...before, ...edit, project: before.project };
      const flag = { name, project: before.project };
      const preData = await views.of(change.db, name);
      await flags.setMetadata(change.db, name, before, after);
      if (after.project !== before.project) await this.move(change, flag, after.project);
      const updated = await views.of(change.db, name);
      if (
        after.type !== before.type ||
        after.description !== before.description ||
        after.impressionData !== before.impressionData
      ) {
        change.record({ type: "feature-metadata-updated", ...subject(flag), data: updated, preData });
      }
      if (after.stale !== before.stale) flags.recordStaleness(change, flag, after.stale);
      // The event carries the flag as no one in particular sees it; the answer, as the caller does.
      return { ...updated, favorite: (await favorites.features(actor, change.db)).has(name) };
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
    const { flags, views } = this.links;
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const flag = await flags.requireArchived(change, projectId, name, "DELETE_FEATURE");
        const preData = await views.of(change.db, name);
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
    const { flags, strategies } = this.links;
    await this.events.change(actor, async (change) => {
      const flag = await flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      await flags.addEnvironment(change.db, flag, place.environment);
      if (enabled) {
        await strategies.prepareToEnable(change, flag, place.environment, activateDisabledStrategies);
      }
      await flags.switchEnvironment(change, flag, place.environment, enabled);
    });
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
