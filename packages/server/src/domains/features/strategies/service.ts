import { randomUUID } from "node:crypto";
import { invalidField, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import type { Db } from "../../../db/connection.js";
import { type PatchOperations, patched } from "../../../shared/json-patch.js";
import { checkConstraints } from "../../../shared/schemas.js";
import { refuseUnreviewed } from "../../change-gate/gate.js";
import type { Change, EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import type { SegmentService } from "../../segments/service.js";
import type { StrategyDefinitionService } from "../../strategy-definitions/service.js";
import type { FlagRef, FlagService } from "../flags/service.js";
import type { EnvironmentParams } from "../params.js";
import { settleVariants } from "../variants/weights.js";
import type {} from "./events.js";
import { checkParameters } from "./parameters.js";
import { type SortOrder, Strategy, type StrategyInput, type StrategyView } from "./schemas.js";
import { type StrategyRow, type StrategyValues, strategyStore } from "./store.js";

const strategyView = (row: StrategyRow): StrategyView => ({
  id: row.id,
  name: row.strategy_name,
  title: row.title,
  disabled: row.disabled,
  featureName: row.feature_name,
  sortOrder: row.sort_order,
  segments: row.segments,
  constraints: row.constraints,
  variants: row.variants,
  parameters: row.parameters,
});

const missingStrategy = (id: string, flag: FlagRef, environment: string) =>
  notFound(`Could not find strategy ${id} of ${flag.name} in ${environment}`);

/** What strategies ask of the projects, segments and strategy-definitions domains. */
export interface StrategyLookups {
  projects: Pick<ProjectService, "requireActive" | "defaultStrategy">;
  segments: Pick<SegmentService, "requireUsable">;
  definitions: Pick<StrategyDefinitionService, "parametersOf">;
}

type CheckedStrategy = Pick<StrategyValues, "name" | "parameters" | "constraints" | "variants">;

/** What a flag switched on without an active strategy gets where its project sets no default. */
const EVERYONE: StrategyInput = {
  name: "flexibleRollout",
  parameters: { rollout: "100", stickiness: "default" },
};

const subject = (flag: FlagRef, environment: string) => ({
  project: flag.project,
  featureName: flag.name,
  environment,
});

/** The strategies of a flag in each environment (`feature_strategies`). */
export class StrategyService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<FlagService, "locate" | "switchEnvironment">,
    private readonly lookups: StrategyLookups,
  ) {}

  async list(_actor: Actor, place: EnvironmentParams): Promise<StrategyView[]> {
    const flag = await this.flags.locate(this.db, place);
    return (await strategyStore.ofFlags(this.db, [flag.name], place.environment)).map(strategyView);
  }

  async get(_actor: Actor, place: EnvironmentParams, id: string): Promise<StrategyView> {
    const flag = await this.flags.locate(this.db, place);
    return strategyView(await this.require(this.db, flag, place.environment, id));
  }

  add(actor: Actor, place: EnvironmentParams, input: StrategyInput): Promise<StrategyView> {
    return this.events.change(actor, async (change) => {
      const flag = await this.flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      const added = strategyView(
        await strategyStore.insert(change.db, {
          ...(await this.settle(change.db, flag, input)),
          title: input.title ?? null,
          disabled: input.disabled ?? false,
          sortOrder:
            input.sortOrder ?? (await strategyStore.nextSortOrder(change.db, flag.name, place.environment)),
          segments: await this.segments(change, flag, input.segments ?? []),
          id: randomUUID(),
          featureName: flag.name,
          project: flag.project,
          environment: place.environment,
        }),
      );
      change.record({ type: "feature-strategy-add", ...subject(flag, place.environment), data: added });
      return added;
    });
  }

  /**
   * PUT replaces the strategy; PATCH applies a JSON Patch to what GET shows. As in the
   * reference, the position stays (set-sort-order moves strategies), and a title,
   * `disabled` or segment list left out or null keeps its value. A flag left without an
   * active strategy in the environment is switched off there.
   */
  update(
    actor: Actor,
    place: EnvironmentParams,
    id: string,
    edit: StrategyInput | PatchOperations,
  ): Promise<StrategyView> {
    return this.events.change(actor, async (change) => {
      const flag = await this.flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      const before = strategyView(await this.require(change.db, flag, place.environment, id));
      const { id: _id, featureName: _feature, ...editable } = before;
      const input = Array.isArray(edit) ? patched(Strategy, editable, edit) : edit;
      const values: Partial<StrategyValues> = await this.settle(change.db, flag, input);
      if (input.title != null) values.title = input.title;
      if (input.disabled != null) values.disabled = input.disabled;
      if (input.segments) values.segments = await this.segments(change, flag, input.segments);
      const updated = strategyView(await strategyStore.update(change.db, id, values));
      change.record({
        type: "feature-strategy-update",
        ...subject(flag, place.environment),
        data: updated,
        preData: before,
      });
      await this.offWhenNoneActive(change, flag, place.environment);
      return updated;
    });
  }

  /** As in the reference, a flag left without an active strategy is switched off there. */
  async remove(actor: Actor, place: EnvironmentParams, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      const before = strategyView(await this.require(change.db, flag, place.environment, id));
      await strategyStore.remove(change.db, id);
      change.record({
        type: "feature-strategy-remove",
        ...subject(flag, place.environment),
        preData: before,
      });
      await this.offWhenNoneActive(change, flag, place.environment);
    });
  }

  async reorder(actor: Actor, place: EnvironmentParams, order: SortOrder): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      const known = new Set(
        (await strategyStore.ofFlags(change.db, [flag.name], place.environment)).map((s) => s.id),
      );
      // Another flag's strategy is not found here, as by its own route.
      for (const entry of order) {
        if (!known.has(entry.id)) throw missingStrategy(entry.id, flag, place.environment);
      }
      for (const entry of order)
        await strategyStore.update(change.db, entry.id, { sortOrder: entry.sortOrder });
      change.record({ type: "strategy-order-changed", ...subject(flag, place.environment), data: order });
    });
  }

  /**
   * Before a flag is switched on in an environment: a flag without an active strategy gets,
   * after its others, the project's default strategy for the environment, or else a 100%
   * rollout, as in the reference, so that "on" means on; unless its disabled strategies are
   * to be activated instead. The default is given active: "on" must serve someone.
   */
  async prepareToEnable(
    change: Change,
    flag: FlagRef,
    environment: string,
    activateDisabled: boolean,
  ): Promise<void> {
    const strategies = await strategyStore.ofFlags(change.db, [flag.name], environment);
    const disabled = strategies.filter((strategy) => strategy.disabled);
    if (activateDisabled) {
      for (const strategy of disabled) {
        const updated = await strategyStore.update(change.db, strategy.id, { disabled: false });
        change.record({
          type: "feature-strategy-update",
          ...subject(flag, environment),
          data: strategyView(updated),
          preData: strategyView(strategy),
        });
      }
    }
    const noneLeftActive =
      strategies.length === 0 || (disabled.length === strategies.length && !activateDisabled);
    if (!noneLeftActive) return;
    const preset = await this.lookups.projects.defaultStrategy(change.db, flag.project, environment);
    const added = await strategyStore.insert(change.db, {
      ...(await this.settle(change.db, flag, preset ?? EVERYONE)),
      id: randomUUID(),
      featureName: flag.name,
      project: flag.project,
      environment,
      title: preset?.title ?? null,
      disabled: false,
      sortOrder: await strategyStore.nextSortOrder(change.db, flag.name, environment),
      segments: await this.segments(change, flag, preset?.segments ?? []),
    });
    change.record({ type: "feature-strategy-add", ...subject(flag, environment), data: strategyView(added) });
  }

  /** The strategies of several flags in every environment, in their order: for the flag views. */
  async ofFlags(db: Db, names: string[]): Promise<{ environment: string; strategy: StrategyView }[]> {
    return (await strategyStore.ofFlags(db, names)).map((row) => ({
      environment: row.environment,
      strategy: strategyView(row),
    }));
  }

  /** A flag's strategies follow it to another project. */
  async moveFlag(db: Db, name: string, project: string): Promise<void> {
    await strategyStore.moveToProject(db, name, project);
  }

  /** A project leaving an environment takes its flags' strategies there with it. */
  async removeInProject(db: Db, project: string, environment: string): Promise<void> {
    await strategyStore.removeInProject(db, project, environment);
  }

  private async require(db: Db, flag: FlagRef, environment: string, id: string): Promise<StrategyRow> {
    const strategy = await strategyStore.byId(db, id);
    if (!strategy || strategy.feature_name !== flag.name || strategy.environment !== environment) {
      throw missingStrategy(id, flag, environment);
    }
    return strategy;
  }

  private async offWhenNoneActive(change: Change, flag: FlagRef, environment: string): Promise<void> {
    const strategies = await strategyStore.ofFlags(change.db, [flag.name], environment);
    if (strategies.every((strategy) => strategy.disabled)) {
      await this.flags.switchEnvironment(change, flag, environment, false);
    }
  }

  private async segments(change: Change, flag: FlagRef, ids: number[]): Promise<number[]> {
    const segments = [...new Set(ids)];
    await this.lookups.segments.requireUsable(change.db, change.actor, flag.project, segments);
    return segments;
  }

  /**
   * A strategy checked and brought to the stored form, with the reference's defaults: a
   * rollout's missing percentage, stickiness (the project's default) and group id (the flag
   * name) filled in, so that every SDK buckets users the same way.
   */
  private async settle(db: Db, flag: FlagRef, input: StrategyInput): Promise<CheckedStrategy> {
    const checked = await this.check(db, input);
    if (input.name === "flexibleRollout") {
      const { parameters } = checked;
      parameters.rollout ??= "100";
      parameters.stickiness ||= (
        await this.lookups.projects.requireActive(db, flag.project)
      ).defaultStickiness;
      parameters.groupId ||= flag.name;
    }
    return checked;
  }

  /**
   * Checks what every write of a strategy replaces, a project environment's default strategy
   * too, and brings it to the stored form: parameters as strings, variant weights settled.
   */
  async check(db: Db, input: StrategyInput): Promise<CheckedStrategy> {
    const declared = await this.lookups.definitions.parametersOf(db, input.name);
    if (!declared) throw invalidField("name", `There is no strategy called ${input.name}`);
    const parameters = Object.fromEntries(
      Object.entries(input.parameters ?? {}).map(([key, value]) => [key, String(value)]),
    );
    checkParameters(declared, parameters);
    checkConstraints(input.constraints ?? [], "constraints");
    return {
      name: input.name,
      parameters,
      constraints: input.constraints ?? [],
      variants: settleVariants(input.variants ?? [], "variants"),
    };
  }
}
