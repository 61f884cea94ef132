import { notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { requirePermission } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { VariantRow } from "../../../db/schema.js";
import { type PatchOperations, patched } from "../../../shared/json-patch.js";
import { refuseUnreviewed } from "../../change-gate/gate.js";
import type { EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import type { FlagService } from "../flags/service.js";
import type {} from "./events.js";
import { type VariantInput, Variants } from "./schemas.js";
import { settleVariants, variantsAsSent } from "./weights.js";

/**
 * PUT sends the variants; PATCH sends a JSON Patch of them. An import keeps them as its
 * file has them, weights included, so that SDKs place users as they did where it came from.
 */
export type VariantChange =
  | { variants: VariantInput[] }
  | { patch: PatchOperations }
  | { asSent: VariantInput[] };

/**
 * The variants of a flag in each environment. They are stored with the flag's state there,
 * which the flags own: this service decides, the flags store.
 */
export class VariantService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<
      FlagService,
      "find" | "require" | "requireEnvironment" | "variantsOf" | "setVariants"
    >,
    private readonly projects: Pick<ProjectService, "environmentsOf">,
  ) {}

  /** An environment the project does not use simply has no variants (the reference answers 200 too). */
  async ofEnvironment(
    _actor: Actor,
    projectId: string,
    name: string,
    environment: string,
  ): Promise<VariantRow[]> {
    await this.flags.require(this.db, projectId, name);
    const variants = await this.flags.variantsOf(this.db, name);
    return variants.find((entry) => entry.environment === environment)?.variants ?? [];
  }

  /** The reference's deprecated flag-level variants: those of the flag's first environment. */
  async ofFlag(_actor: Actor, projectId: string, name: string): Promise<VariantRow[]> {
    const flag = await this.flags.find(this.db, name);
    if (!flag || flag.project !== projectId) throw notFound(`Could not find feature flag ${name}`);
    return (await this.flags.variantsOf(this.db, name))[0]?.variants ?? [];
  }

  /**
   * Replaces (or patches) the variants of some of a flag's environments, or of all of
   * them when `environments` is undefined: the reference's flag-level variants.
   */
  set(
    actor: Actor,
    projectId: string,
    name: string,
    environments: string[] | undefined,
    edit: VariantChange,
  ): Promise<VariantRow[]> {
    return this.events.change(actor, async (change) => {
      const flag = await this.flags.require(change.db, projectId, name);
      const targets = environments ?? (await this.projects.environmentsOf(change.db, flag.project));
      for (const environment of targets) {
        await this.flags.requireEnvironment(change.db, flag, environment);
        // The batch names its environments in the body, out of the route's sight. A change
        // request's author was asked when adding the change; its applier needs only to apply.
        if (environments && change.reviewed !== flag.project)
          requirePermission(actor, "UPDATE_FEATURE_ENVIRONMENT_VARIANTS", {
            project: flag.project,
            environment,
          });
      }
      await refuseUnreviewed(change, flag.project, targets);
      const current = await this.flags.variantsOf(change.db, name);
      const before = (environment: string | undefined) =>
        current.find((entry) => entry.environment === environment)?.variants ?? [];
      const variants =
        "asSent" in edit
          ? variantsAsSent(edit.asSent)
          : settleVariants(
              "patch" in edit ? patched(Variants, before(targets[0]), edit.patch) : edit.variants,
            );
      await this.flags.setVariants(change.db, name, targets, variants);
      for (const environment of targets) {
        change.record({
          type: environments ? "feature-environment-variants-updated" : "feature-variants-updated",
          project: flag.project,
          featureName: name,
          environment,
          data: { variants },
          preData: { variants: before(environment) },
        });
      }
      return variants;
    });
  }
}
