import { notFound } from "@signalbox/protocol";
import { type Actor, system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { SafeguardMetricRow } from "../../db/schema.js";
import { ulid } from "../../shared/ulid.js";
import { refuseUnreviewed } from "../change-gate/gate.js";
import type { Change, EventService } from "../events/service.js";
import type { FlagEditingService } from "../features/editing/service.js";
import type { FlagRef, FlagService } from "../features/flags/service.js";
import type { EnvironmentParams } from "../features/params.js";
import type {} from "./events.js";
import type { ReleasePlanService } from "./plans.js";
import type { EnvironmentSafeguard, PlanSafeguard, SafeguardInput } from "./schemas.js";
import { type SafeguardRow, releasePlanStore as store } from "./store.js";
import { environmentSafeguardView, planSafeguardView, safeguardView, subject } from "./views.js";

/** What a safeguard asks of the impact metrics: one number over the last window. */
export interface MetricReader {
  aggregate(query: {
    metricName: string;
    aggregationMode: SafeguardMetricRow["aggregationMode"];
    labelSelectors: Record<string, string[]>;
    windowMs: number;
    now?: Date;
  }): Promise<number | undefined>;
}

export interface SafeguardTiming {
  /** How often every safeguard is looked at, in ms. */
  evaluationMs: number;
  /** The window a safeguard's metric is aggregated over at each look, in ms. */
  windowMs: number;
}

const holds = (row: SafeguardRow, value: number) =>
  row.trigger_condition.operator === ">"
    ? value > row.trigger_condition.threshold
    : value < row.trigger_condition.threshold;

/**
 * Safeguards watch an impact metric over a flag's environment: one on a release plan pauses
 * its progression, one on the environment itself switches the flag off there. Each plan and
 * each environment has at most one; PUT makes or replaces it. Acting is the system's, as
 * the safeguard's author foresaw it, so it needs no change request: it only ever stops.
 */
export class SafeguardService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly links: {
      flags: Pick<FlagService, "locate" | "find" | "enabledIn">;
      flagEditing: Pick<FlagEditingService, "setEnabled">;
      plans: Pick<ReleasePlanService, "require" | "pause" | "running">;
      metrics: MetricReader;
    },
    private readonly timing: SafeguardTiming,
  ) {}

  async putOnPlan(
    actor: Actor,
    place: EnvironmentParams,
    planId: string,
    input: SafeguardInput,
  ): Promise<PlanSafeguard> {
    return planSafeguardView(await this.save(actor, place, planId, input));
  }

  async putOnEnvironment(
    actor: Actor,
    place: EnvironmentParams,
    input: SafeguardInput,
  ): Promise<EnvironmentSafeguard> {
    return environmentSafeguardView(await this.save(actor, place, null, input));
  }

  /** The environment's own safeguard, if it has one. */
  async ofEnvironment(
    db: Db,
    feature: string,
    environment: string,
  ): Promise<EnvironmentSafeguard | undefined> {
    const row = (await store.safeguardsOf(db, [feature], environment)).find(
      (candidate) => !candidate.release_plan_id,
    );
    return row && environmentSafeguardView(row);
  }

  async listOnEnvironment(_actor: Actor, place: EnvironmentParams): Promise<EnvironmentSafeguard[]> {
    const flag = await this.links.flags.locate(this.db, place);
    return (await store.safeguardsOf(this.db, [flag.name], place.environment))
      .filter((row) => row.release_plan_id === null)
      .map(environmentSafeguardView);
  }

  async remove(actor: Actor, place: EnvironmentParams, planId: string | null, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const row = await store.safeguard(change.db, id);
      if (
        !row ||
        row.feature_name !== flag.name ||
        row.environment !== place.environment ||
        row.release_plan_id !== planId
      ) {
        throw notFound(`Could not find safeguard ${id}`);
      }
      await store.deleteSafeguard(change.db, id);
      change.record({
        type: "safeguard-deleted",
        ...subject(flag, place.environment),
        preData: safeguardView(row),
      });
    });
  }

  /** The environment's safeguard, having switched the flag off before `since`, is no longer triggered. */
  async rearm(feature: string, environment: string, since: Date): Promise<void> {
    await store.rearm(this.db, feature, environment, since);
  }

  /**
   * Looks at every safeguard once: where its condition holds over the window, it acts, each
   * once across instances (the safeguard's row is locked while it does, and what it does
   * is looked at again under the lock). Answers how many acted.
   */
  async evaluate(now = new Date()): Promise<number> {
    let acted = 0;
    for (const row of await store.allSafeguards(this.db)) {
      if (!(await this.watching(row))) continue;
      const value = await this.links.metrics.aggregate({
        metricName: row.impact_metric.metricName,
        aggregationMode: row.impact_metric.aggregationMode,
        labelSelectors: row.impact_metric.labelSelectors,
        windowMs: this.timing.windowMs,
        now,
      });
      if (value === undefined || !holds(row, value)) continue;
      if (await this.act(row, value, now)) acted++;
    }
    return acted;
  }

  /** Whether there is anything for the safeguard to stop: a running plan, or the flag on. */
  private async watching(row: SafeguardRow): Promise<boolean> {
    if (row.release_plan_id) return this.links.plans.running(this.db, row.release_plan_id);
    return (await this.links.flags.enabledIn(this.db, row.environment, [row.feature_name])).length > 0;
  }

  private async act(row: SafeguardRow, value: number, now: Date): Promise<boolean> {
    const flag = await this.links.flags.find(this.db, row.feature_name);
    if (!flag || flag.archived) return false;
    return this.events.change(
      system(),
      async (change) => {
        const locked = await store.claimSafeguard(change.db, row.id);
        if (!locked) return false;
        if (locked.release_plan_id) {
          if (!(await this.links.plans.pause(change, locked.release_plan_id, locked.id))) return false;
        } else {
          const on = await this.links.flags.enabledIn(change.db, locked.environment, [locked.feature_name]);
          if (on.length === 0) return false;
          await this.links.flagEditing.setEnabled(
            change.actor,
            { projectId: flag.project, featureName: flag.name, environment: locked.environment },
            false,
            false,
          );
        }
        await store.markTriggered(change.db, locked.id, now);
        change.record({
          type: "safeguard-triggered",
          ...subject(flag, locked.environment),
          data: {
            safeguard: safeguardView({ ...locked, triggered_at: now }),
            value,
            windowSeconds: this.timing.windowMs / 1000,
          },
        });
        return true;
      },
      { reviewed: flag.project },
    );
  }

  private async save(
    actor: Actor,
    place: EnvironmentParams,
    planId: string | null,
    input: SafeguardInput,
  ): Promise<SafeguardRow> {
    return this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      if (planId !== null) {
        await this.links.plans.require(change.db, place, planId);
        // One safeguard a plan: two made at once are one after the other, the second replacing.
        await store.lockPlan(change.db, planId);
      }
      const existing = (await store.safeguardsOf(change.db, [flag.name], place.environment)).find(
        (row) => row.release_plan_id === planId,
      );
      const id = existing?.id ?? ulid();
      await store.saveSafeguard(change.db, {
        id,
        project: flag.project,
        feature_name: flag.name,
        environment: place.environment,
        release_plan_id: planId,
        action: planId ? "pauseReleasePlanProgressions" : "disableFeatureEnvironment",
        impact_metric: { ...input.impactMetric, id: existing?.impact_metric.id ?? ulid() },
        trigger_condition: input.triggerCondition,
      });
      const row = (await store.safeguard(change.db, id))!;
      change.record({
        type: "safeguard-changed",
        ...subject(flag, place.environment),
        data: safeguardView(row),
        ...(existing && { preData: safeguardView(existing) }),
      });
      return row;
    });
  }

  private async gate(change: Change, place: EnvironmentParams): Promise<FlagRef> {
    const flag = await this.links.flags.locate(change.db, place);
    await refuseUnreviewed(change, flag.project, [place.environment]);
    return flag;
  }
}
