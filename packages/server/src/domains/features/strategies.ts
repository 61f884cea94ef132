import { randomUUID } from "node:crypto";
import { invalidField, notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { ConstraintRow } from "../../db/schema.js";
import { type PatchOperations, patched } from "../../shared/json-patch.js";
import { checkConstraints } from "../../shared/schemas.js";
import type { EventService, Tx } from "../events/service.js";
import { type ProjectLookup, requireEnvironment, requireFeature } from "./access.js";
import { Strategy } from "./schemas.js";
import { switchEnvironment } from "./service.js";
import { type FeatureRow, featureStore, type StrategyValues } from "./store.js";
import { settleVariants, type VariantInput } from "./variants.js";
import { type StrategyView, strategyView } from "./view.js";

export interface StrategyInput {
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  constraints?: ConstraintRow[];
  segments?: number[];
  parameters?: Record<string, string | number | boolean>;
  variants?: VariantInput[];
}

/**
 * Typed parameters hold what their type says, as the reference's form enforces: a
 * percentage is a number from 0 to 100 (a rollout of 150 would be on for everyone), a
 * number is a number, a boolean `true` or `false`. An empty value is left for defaults.
 */
function checkParameters(
  declared: { name: string; type: string }[],
  parameters: Record<string, string>,
): void {
  for (const { name, type } of declared) {
    const value = parameters[name];
    if (value === undefined || value === "") continue;
    const number = Number(value);
    const problem =
      type === "percentage" && !(value.trim() !== "" && number >= 0 && number <= 100)
        ? "a number from 0 to 100"
        : type === "number" && !(value.trim() !== "" && Number.isFinite(number))
          ? "a number"
          : type === "boolean" && value !== "true" && value !== "false"
            ? "true or false"
            : undefined;
    if (problem)
      throw invalidField(`parameters.${name}`, `parameters.${name} must be ${problem}, got "${value}"`);
  }
}

/** What the features domain asks of the segments and strategy-definitions domains. */
export interface StrategyLookups {
  segments: { requireAll(db: Db, ids: number[]): Promise<void> };
  definitions: { parametersOf(db: Db, name: string): Promise<{ name: string; type: string }[] | undefined> };
}

interface Place {
  projectId: string;
  featureName: string;
  environment: string;
}

const subject = (row: FeatureRow, environment: string) => ({
  project: row.project,
  featureName: row.name,
  environment,
});

/** The strategies of one flag in one environment. */
export class StrategyService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: ProjectLookup,
    private readonly lookups: StrategyLookups,
  ) {}

  async list(place: Place): Promise<StrategyView[]> {
    const row = await this.locate(this.db, place);
    return (await featureStore.strategies(this.db, [row.name], place.environment)).map(strategyView);
  }

  async get(place: Place, id: string): Promise<StrategyView> {
    const row = await this.locate(this.db, place);
    return strategyView(await this.requireStrategy(this.db, row, place.environment, id));
  }

  async add(place: Place, input: StrategyInput, by: string): Promise<StrategyView> {
    return this.events.transaction(async (tx) => {
      const row = await this.locate(tx.db, place);
      const added = strategyView(
        await featureStore.insertStrategy(tx.db, {
          ...(await this.settle(tx.db, row, input)),
          title: input.title ?? null,
          disabled: input.disabled ?? false,
          sortOrder:
            input.sortOrder ?? (await featureStore.nextSortOrder(tx.db, row.name, place.environment)),
          segments: await this.segments(tx.db, input.segments ?? []),
          id: randomUUID(),
          featureName: row.name,
          project: row.project,
          environment: place.environment,
        }),
      );
      tx.record({
        type: "feature-strategy-add",
        createdBy: by,
        ...subject(row, place.environment),
        data: added,
      });
      return added;
    });
  }

  /**
   * PUT replaces the strategy; PATCH applies a JSON Patch to what GET shows. As in the
   * reference, the position stays (set-sort-order moves strategies), and a title,
   * `disabled` or segment list left out or null keeps its value. A flag left without an
   * active strategy in the environment is switched off there.
   */
  async update(
    place: Place,
    id: string,
    change: StrategyInput | PatchOperations,
    by: string,
  ): Promise<StrategyView> {
    return this.events.transaction(async (tx) => {
      const row = await this.locate(tx.db, place);
      const before = strategyView(await this.requireStrategy(tx.db, row, place.environment, id));
      const { id: _id, featureName: _feature, ...editable } = before;
      const input: StrategyInput = Array.isArray(change) ? patched(Strategy, editable, change) : change;
      const values: Partial<StrategyValues> = await this.settle(tx.db, row, input);
      if (input.title != null) values.title = input.title;
      if (input.disabled != null) values.disabled = input.disabled;
      if (input.segments) values.segments = await this.segments(tx.db, input.segments);
      const updated = strategyView(await featureStore.updateStrategy(tx.db, id, values));
      tx.record({
        type: "feature-strategy-update",
        createdBy: by,
        ...subject(row, place.environment),
        data: updated,
        preData: before,
      });
      await this.offWhenNoneActive(tx, row, place.environment, by);
      return updated;
    });
  }

  /** As in the reference, a flag left without an active strategy is switched off there. */
  async remove(place: Place, id: string, by: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const row = await this.locate(tx.db, place);
      const before = strategyView(await this.requireStrategy(tx.db, row, place.environment, id));
      await featureStore.removeStrategy(tx.db, id);
      tx.record({
        type: "feature-strategy-remove",
        createdBy: by,
        ...subject(row, place.environment),
        preData: before,
      });
      await this.offWhenNoneActive(tx, row, place.environment, by);
    });
  }

  async reorder(place: Place, order: { id: string; sortOrder: number }[], by: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const row = await this.locate(tx.db, place);
      const known = new Set(
        (await featureStore.strategies(tx.db, [row.name], place.environment)).map((s) => s.id),
      );
      order.forEach((entry, index) => {
        if (!known.has(entry.id))
          throw invalidField(
            `${index}.id`,
            `strategy ${entry.id} is not one of this flag's in ${place.environment}`,
          );
      });
      for (const entry of order)
        await featureStore.updateStrategy(tx.db, entry.id, { sortOrder: entry.sortOrder });
      tx.record({
        type: "strategy-order-changed",
        createdBy: by,
        ...subject(row, place.environment),
        data: order,
      });
    });
  }

  private async locate(db: Db, place: Place): Promise<FeatureRow> {
    const row = await requireFeature(db, place.projectId, place.featureName);
    await requireEnvironment(db, this.projects, row, place.environment);
    return row;
  }

  private async requireStrategy(db: Db, row: FeatureRow, environment: string, id: string) {
    const strategy = await featureStore.strategy(db, id);
    if (!strategy || strategy.feature_name !== row.name || strategy.environment !== environment) {
      throw notFound(`Could not find strategy ${id} of ${row.name} in ${environment}`);
    }
    return strategy;
  }

  private async offWhenNoneActive(tx: Tx, row: FeatureRow, environment: string, by: string) {
    const strategies = await featureStore.strategies(tx.db, [row.name], environment);
    if (strategies.every((strategy) => strategy.disabled)) {
      await switchEnvironment(tx, row, environment, false, by);
    }
  }

  private async segments(db: Db, ids: number[]): Promise<number[]> {
    const segments = [...new Set(ids)];
    await this.lookups.segments.requireAll(db, segments);
    return segments;
  }

  /**
   * Checks what every write of a strategy replaces and brings it to the stored form, with
   * the reference's defaults: parameters as strings, and a rollout's missing percentage,
   * stickiness (the project's default) and group id (the flag name) filled in, so that
   * every SDK buckets users the same way.
   */
  private async settle(
    db: Db,
    row: FeatureRow,
    input: StrategyInput,
  ): Promise<Pick<StrategyValues, "name" | "parameters" | "constraints" | "variants">> {
    const declared = await this.lookups.definitions.parametersOf(db, input.name);
    if (!declared) throw invalidField("name", `There is no strategy called ${input.name}`);
    const parameters = Object.fromEntries(
      Object.entries(input.parameters ?? {}).map(([key, value]) => [key, String(value)]),
    );
    checkParameters(declared, parameters);
    checkConstraints(input.constraints ?? [], "constraints");
    if (input.name === "flexibleRollout") {
      parameters.rollout ??= "100";
      parameters.stickiness ||= (await this.projects.requireActive(db, row.project)).defaultStickiness;
      parameters.groupId ||= row.name;
    }
    return {
      name: input.name,
      parameters,
      constraints: input.constraints ?? [],
      variants: settleVariants(input.variants ?? [], "variants"),
    };
  }
}
