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
import type { StrategyParameter } from "../../strategy-definitions/schemas.js";
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
    private readonly flags: Pick<
      FlagService,
      "locate" | "locateAll" | "switchEnvironment" | "switchEnvironments"
    >,
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

  async add(actor: Actor, place: EnvironmentParams, input: StrategyInput): Promise<StrategyView> {
    const { projectId, environment, featureName } = place;
    const [added] = await this.addAll(actor, projectId, environment, [{ featureName, input }]);
    return added!;
  }

  /** Adds strategies to flags of a project in one environment as `add` adds each, one after the other, written together. */
  addAll(
    actor: Actor,
    projectId: string,
    environment: string,
    entries: { featureName: string; input: StrategyInput }[],
  ): Promise<StrategyView[]> {
    return this.events.change(actor, async (change) => {
      const flags = await this.flags.locateAll(
        change.db,
        projectId,
        environment,
        entries.map((entry) => entry.featureName),
      );
      await refuseUnreviewed(change, projectId, [environment]);
      const added = await this.insert(
        change,
        environment,
        flags.map((flag, index) => ({ flag, input: entries[index]!.input })),
      );
      for (const [index, strategy] of added.entries()) {
        change.record({
          type: "feature-strategy-add",
          ...subject(flags[index]!, environment),
          data: strategy,
        });
      }
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
      if (input.segments) values.segments = await this.segments(change, flag.project, input.segments);
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
    const { projectId, environment, featureName } = place;
    await this.removeAll(actor, projectId, environment, [{ featureName, id }]);
  }

  /**
   * Removes strategies of flags of a project in one environment as `remove` removes each,
   * one after the other, written together; flags left without an active strategy are
   * switched off there once all are removed.
   */
  async removeAll(
    actor: Actor,
    projectId: string,
    environment: string,
    entries: { featureName: string; id: string }[],
  ): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flags = await this.flags.locateAll(
        change.db,
        projectId,
        environment,
        entries.map((entry) => entry.featureName),
      );
      await refuseUnreviewed(change, projectId, [environment]);
      const ids = entries.map((entry) => entry.id);
      const stored = new Map((await strategyStore.byIds(change.db, ids)).map((row) => [row.id, row]));
      const left = await this.heldBy(change.db, flags, environment);
      // Where a removal leaves its flag without an active strategy, the flag is switched off:
      // its later removals are recorded after that, as one at a time would record them.
      const off = new Map<string, { index: number; flag: FlagRef }>();
      const removed = entries.map(({ id }, index) => {
        const flag = flags[index]!;
        const strategy = stored.get(id);
        if (!strategy || strategy.feature_name !== flag.name || strategy.environment !== environment) {
          throw missingStrategy(id, flag, environment);
        }
        // Removed once: named again, it is no longer found.
        stored.delete(id);
        const others = left.get(flag.name)!.filter((other) => other.id !== id);
        left.set(flag.name, others);
        if (others.every((other) => other.disabled) && !off.has(flag.name))
          off.set(flag.name, { index, flag });
        return { flag, strategy, late: index > (off.get(flag.name)?.index ?? index) };
      });
      await strategyStore.remove(change.db, ids);
      const record = ({ flag, strategy }: (typeof removed)[number]) =>
        change.record({
          type: "feature-strategy-remove",
          ...subject(flag, environment),
          preData: strategyView(strategy),
        });
      for (const entry of removed) if (!entry.late) record(entry);
      await this.flags.switchEnvironments(
        change,
        environment,
        [...off.values()].map(({ flag }) => ({ flag, enabled: false })),
      );
      for (const entry of removed) if (entry.late) record(entry);
    });
  }

  async reorder(actor: Actor, place: EnvironmentParams, order: SortOrder): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.locate(change.db, place);
      await refuseUnreviewed(change, flag.project, [place.environment]);
      const held = await strategyStore.ofFlags(change.db, [flag.name], place.environment);
      const known = new Set(held.map((s) => s.id));
      // Another flag's strategy is not found here, as by its own route.
      for (const entry of order) {
        if (!known.has(entry.id)) throw missingStrategy(entry.id, flag, place.environment);
      }
      for (const entry of order)
        await strategyStore.update(change.db, entry.id, { sortOrder: entry.sortOrder });
      // Where every strategy of the flag there stood before: what undoing the change needs.
      const preData = held.map((strategy) => ({ id: strategy.id, sortOrder: strategy.sort_order }));
      change.record({
        type: "strategy-order-changed",
        ...subject(flag, place.environment),
        data: order,
        preData,
      });
    });
  }

  /**
   * Before flags are switched on in an environment: a flag without an active strategy gets,
   * after its others, the project's default strategy for the environment, or else a 100%
   * rollout, as in the reference, so that "on" means on; unless its disabled strategies are
   * to be activated instead. The default is given active: "on" must serve someone.
   */
  async prepareToEnable(
    change: Change,
    flags: FlagRef[],
    environment: string,
    activateDisabled: boolean,
  ): Promise<void> {
    const unique = [...new Map(flags.map((flag) => [flag.name, flag])).values()];
    const held = await this.heldBy(change.db, unique, environment);
    if (activateDisabled) {
      const disabled = unique.flatMap((flag) =>
        held
          .get(flag.name)!
          .filter((strategy) => strategy.disabled)
          .map((strategy) => ({ flag, strategy })),
      );
      const activated = new Map(
        (
          await strategyStore.enable(
            change.db,
            disabled.map(({ strategy }) => strategy.id),
          )
        ).map((row) => [row.id, row]),
      );
      for (const { flag, strategy } of disabled) {
        change.record({
          type: "feature-strategy-update",
          ...subject(flag, environment),
          data: strategyView(activated.get(strategy.id)!),
          preData: strategyView(strategy),
        });
      }
    }
    const bare = unique.filter((flag) => {
      const strategies = held.get(flag.name)!;
      return (
        strategies.length === 0 || (!activateDisabled && strategies.every((strategy) => strategy.disabled))
      );
    });
    const presets = new Map<string, StrategyInput | undefined>();
    for (const project of new Set(bare.map((flag) => flag.project))) {
      presets.set(project, await this.lookups.projects.defaultStrategy(change.db, project, environment));
    }
    const added = await this.insert(
      change,
      environment,
      bare.map((flag) => ({
        flag,
        input: { ...(presets.get(flag.project) ?? EVERYONE), disabled: false, sortOrder: undefined },
      })),
    );
    for (const [index, strategy] of added.entries()) {
      change.record({ type: "feature-strategy-add", ...subject(bare[index]!, environment), data: strategy });
    }
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

  private async segments(change: Change, project: string, ids: number[]): Promise<number[]> {
    const segments = [...new Set(ids)];
    await this.lookups.segments.requireUsable(change.db, change.actor, project, segments);
    return segments;
  }

  /** The strategies each flag has in the environment, in their order. */
  private async heldBy(db: Db, flags: FlagRef[], environment: string): Promise<Map<string, StrategyRow[]>> {
    const held = new Map(flags.map((flag) => [flag.name, [] as StrategyRow[]]));
    for (const row of await strategyStore.ofFlags(db, [...held.keys()], environment)) {
      held.get(row.feature_name)!.push(row);
    }
    return held;
  }

  /**
   * Writes new strategies, each checked and placed as if written one after the other: one
   * without a position goes after its flag's others in the environment, those written
   * before it included. What is looked up for one strategy serves the next.
   */
  private async insert(
    change: Change,
    environment: string,
    entries: { flag: FlagRef; input: StrategyInput }[],
  ): Promise<StrategyView[]> {
    if (entries.length === 0) return [];
    const { db } = change;
    const declared = memoized((name) => this.lookups.definitions.parametersOf(db, name));
    const stickiness = memoized(
      async (project) => (await this.lookups.projects.requireActive(db, project)).defaultStickiness,
    );
    const usable = memoized((key) => {
      const [project, ids] = JSON.parse(key) as [string, number[]];
      return this.segments(change, project, ids);
    });
    const last = await strategyStore.lastSortOrders(
      db,
      entries.map((entry) => entry.flag.name),
      environment,
    );
    const rows = [];
    for (const { flag, input } of entries) {
      const checked = await settled(flag, input, await declared(input.name), () => stickiness(flag.project));
      const previous = last.get(flag.name);
      const sortOrder = input.sortOrder ?? (previous === undefined ? 0 : previous + 1);
      last.set(flag.name, Math.max(sortOrder, previous ?? sortOrder));
      rows.push({
        ...checked,
        title: input.title ?? null,
        disabled: input.disabled ?? false,
        sortOrder,
        segments: await usable(JSON.stringify([flag.project, input.segments ?? []])),
        id: randomUUID(),
        featureName: flag.name,
        project: flag.project,
        environment,
      });
    }
    const inserted = new Map((await strategyStore.insert(db, rows)).map((row) => [row.id, row]));
    return rows.map((row) => strategyView(inserted.get(row.id)!));
  }

  /**
   * A strategy checked and brought to the stored form, with the reference's defaults: a
   * rollout's missing percentage, stickiness (the project's default) and group id (the flag
   * name) filled in, so that every SDK buckets users the same way.
   */
  private async settle(db: Db, flag: FlagRef, input: StrategyInput): Promise<CheckedStrategy> {
    return settled(
      flag,
      input,
      await this.lookups.definitions.parametersOf(db, input.name),
      async () => (await this.lookups.projects.requireActive(db, flag.project)).defaultStickiness,
    );
  }

  /**
   * Checks what every write of a strategy replaces, a project environment's default strategy
   * too, and brings it to the stored form: parameters as strings, variant weights settled.
   */
  async check(db: Db, input: StrategyInput): Promise<CheckedStrategy> {
    return checkedStrategy(input, await this.lookups.definitions.parametersOf(db, input.name));
  }
}

/** `load`, asked once per key. */
function memoized<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const loaded = new Map<string, Promise<T>>();
  return (key) => {
    const known = loaded.get(key);
    if (known) return known;
    const loading = load(key);
    loaded.set(key, loading);
    return loading;
  };
}

/** What `settle` does once the strategy's declared parameters are known, asking the project's stickiness only when needed. */
async function settled(
  flag: FlagRef,
  input: StrategyInput,
  declared: StrategyParameter[] | undefined,
  defaultStickiness: () => Promise<string>,
): Promise<CheckedStrategy> {
  const checked = checkedStrategy(input, declared);
  if (input.name === "flexibleRollout") {
    const { parameters } = checked;
    parameters.rollout ??= "100";
    parameters.stickiness ||= await defaultStickiness();
    parameters.groupId ||= flag.name;
  }
  return checked;
}

/** What `check` does once the strategy's declared parameters are known (none: no such strategy). */
function checkedStrategy(input: StrategyInput, declared: StrategyParameter[] | undefined): CheckedStrategy {
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
