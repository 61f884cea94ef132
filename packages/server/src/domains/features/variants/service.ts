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
      "find" | "require" | "requireAll" | "requireEnvironment" | "variantsOf" | "states" | "setVariants"
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
  async set(
    actor: Actor,
    projectId: string,
    name: string,
    environments: string[] | undefined,
    edit: VariantChange,
  ): Promise<VariantRow[]> {
    const [variants] = await this.setAll(actor, projectId, environments, [{ name, edit }]);
    return variants!;
  }

  /** Sets the variants of flags of a project as `set` sets each, one after the other, written together. */
  setAll(
    actor: Actor,
    projectId: string,
    environments: string[] | undefined,
    entries: { name: string; edit: VariantChange }[],
  ): Promise<VariantRow[][]> {
    return this.events.change(actor, async (change) => {
      const flags = await this.flags.requireAll(
        change.db,
        projectId,
        entries.map((entry) => entry.name),
      );
      const targets = environments ?? (await this.projects.environmentsOf(change.db, projectId));
      const [first] = flags;
      for (const environment of targets) {
        if (first) await this.flags.requireEnvironment(change.db, first, environment);
        // The batch names its environments in the body, out of the route's sight. A change
        // request's author was asked when adding the change; its applier needs only to apply.
        if (environments && change.reviewed !== projectId)
          requirePermission(actor, "UPDATE_FEATURE_ENVIRONMENT_VARIANTS", {
            project: projectId,
            environment,
          });
      }
      await refuseUnreviewed(change, projectId, targets);
      const current = new Map<string, VariantRow[]>();
      for (const row of await this.flags.states(
        change.db,
        flags.map((flag) => flag.name),
      )) {
        current.set(JSON.stringify([row.feature_name, row.environment]), row.variants);
      }
      const before = (name: string, environment: string | undefined) =>
        current.get(JSON.stringify([name, environment])) ?? [];
      const written = entries.map(({ name, edit }) => {
        const variants =
          "asSent" in edit
            ? variantsAsSent(edit.asSent)
            : settleVariants(
                "patch" in edit ? patched(Variants, before(name, targets[0]), edit.patch) : edit.variants,
              );
        for (const environment of targets) {
          change.record({
            type: environments ? "feature-environment-variants-updated" : "feature-variants-updated",
            project: projectId,
            featureName: name,
            environment,
            data: { variants },
            preData: { variants: before(name, environment) },
          });
          // A flag named again starts from what this entry wrote.
          current.set(JSON.stringify([name, environment]), variants);
        }
        return { name, variants };
      });
      await this.flags.setVariants(change.db, written, targets);
      return written.map((entry) => entry.variants);
    });
  }
}
