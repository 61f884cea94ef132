import { conflict, invalidField, notFound } from "@signalbox/protocol";
import { type Actor, actorUserId, system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { ulid } from "../../shared/ulid.js";
import { refuseUnreviewed } from "../change-gate/gate.js";
import type { Change, EventService } from "../events/service.js";
import type { FlagEditingService } from "../features/editing/service.js";
import type { FlagRef, FlagService } from "../features/flags/service.js";
import type { EnvironmentParams } from "../features/params.js";
import type { StrategyInput } from "../features/strategies/schemas.js";
import type { StrategyService } from "../features/strategies/service.js";
import type { SegmentService } from "../segments/service.js";
import type {} from "./events.js";
import type { Plan, ProgressionInput } from "./schemas.js";
import { type DefinitionRow, type MilestoneRow, releasePlanStore as store } from "./store.js";
import type { ReleaseTemplateService } from "./templates.js";
import { planView, subject } from "./views.js";

export interface ReleasePlanLinks {
  flags: Pick<FlagService, "locate" | "find" | "enabledIn">;
  flagEditing: Pick<FlagEditingService, "setEnabled">;
  strategies: Pick<StrategyService, "ofFlags" | "addAll" | "removeAll">;
  segments: Pick<SegmentService, "requireUsable">;
  templates: Pick<ReleaseTemplateService, "usable">;
}

export interface ReleaseTiming {
  /** How long a transition condition's minute lasts, in ms: 60 000 but in tests. */
  minuteMs: number;
}

const missingPlan = (id: string, place: EnvironmentParams) =>
  notFound(`Could not find release plan ${id} of ${place.featureName} in ${place.environment}`);
const missingMilestone = (id: string) => notFound(`Could not find milestone ${id} in this release plan`);

const milestoneData = (plan: DefinitionRow, milestone: MilestoneRow) => ({
  planId: plan.id,
  milestoneId: milestone.id,
  milestoneName: milestone.name,
});

/**
 * Release plans on a flag's environment: made from a template, they serve one milestone's
 * strategies at a time. Starting a milestone replaces the environment's strategies with
 * the milestone's, in one change; a milestone with a transition condition hands over to
 * its target (the next one unless set) when its time is up, once across instances. In an
 * environment that requires change requests every step a person takes goes through one,
 * and the steps of an approved plan's progression follow on their own: the plan, with its
 * timings, is what was reviewed.
 */
export class ReleasePlanService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly links: ReleasePlanLinks,
    private readonly timing: ReleaseTiming,
  ) {}

  async list(_actor: Actor, place: EnvironmentParams): Promise<Plan[]> {
    const flag = await this.links.flags.locate(this.db, place);
    const rows = await store.plansOf(this.db, [flag.name], place.environment);
    return Promise.all(rows.map((row) => this.view(this.db, row)));
  }

  /** The plans of a flag in every environment, for its page. */
  async ofFlag(db: Db, name: string): Promise<Plan[]> {
    const rows = await store.plansOf(db, [name]);
    return Promise.all(rows.map((row) => this.view(db, row)));
  }

  async get(_actor: Actor, place: EnvironmentParams, id: string): Promise<Plan> {
    await this.links.flags.locate(this.db, place);
    return this.view(this.db, await this.require(this.db, place, id));
  }

  async add(actor: Actor, place: EnvironmentParams, templateId: string): Promise<Plan> {
    return this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      if ((await store.plansOf(change.db, [flag.name], place.environment)).length > 0) {
        throw conflict(
          `${flag.name} already has a release plan in ${place.environment}: remove it before adding another`,
        );
      }
      const template = await this.links.templates.usable(change.db, templateId);
      const segments = template.milestones.flatMap((milestone) =>
        milestone.strategies.flatMap((strategy) => strategy.segments),
      );
      await this.links.segments.requireUsable(change.db, change.actor, flag.project, [...new Set(segments)]);
      const id = ulid();
      await store.insertDefinition(change.db, {
        id,
        discriminator: "plan",
        name: template.name,
        description: template.description,
        feature_name: flag.name,
        environment: place.environment,
        release_plan_template_id: template.id,
        active_milestone_id: null,
        created_by_user_id: actorUserId(actor),
      });
      await store.replaceMilestones(
        change.db,
        id,
        template.milestones.map((milestone) => ({
          id: ulid(),
          name: milestone.name,
          sortOrder: milestone.sortOrder,
          transitionCondition: milestone.transitionCondition,
          strategies: milestone.strategies.map(
            ({ milestoneId: _milestone, strategyName: _name, ...strategy }) => ({ ...strategy, id: ulid() }),
          ),
        })),
      );
      const plan = await this.view(change.db, (await store.definition(change.db, id, "plan"))!);
      change.record({ type: "release-plan-added", ...subject(flag, place.environment), data: plan });
      return plan;
    });
  }

  /** Removes the plan and its safeguards; the strategies it last served stay. */
  async remove(actor: Actor, place: EnvironmentParams, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const plan = await this.view(change.db, await this.lock(change.db, place, id));
      await store.deleteDefinition(change.db, id);
      change.record({ type: "release-plan-removed", ...subject(flag, place.environment), preData: plan });
    });
  }

  /** Starts a milestone of the plan (of the environment's plan, when `planId` is not given). */
  async startMilestone(
    actor: Actor,
    place: EnvironmentParams,
    milestoneId: string,
    planId?: string,
  ): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const found = planId ?? (await store.plansOf(change.db, [flag.name], place.environment))[0]?.id;
      if (found === undefined) throw notFound(`${flag.name} has no release plan in ${place.environment}`);
      const plan = await this.lock(change.db, place, found);
      const milestones = await store.milestones(change.db, [plan.id]);
      const milestone = milestones.find((candidate) => candidate.id === milestoneId);
      if (!milestone) throw missingMilestone(milestoneId);
      await this.start(change, flag, plan, milestones, milestone, false);
    });
  }

  /** Sets when `sourceMilestoneId` hands over, and to which milestone. */
  async changeProgression(
    actor: Actor,
    place: EnvironmentParams,
    sourceMilestoneId: string,
    input: ProgressionInput,
  ): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const { plan, milestones, source } = await this.progressionSource(change.db, place, sourceMilestoneId);
      const target = milestones.find((milestone) => milestone.id === input.targetMilestone);
      if (!target || target.id === source.id) {
        throw invalidField(
          "targetMilestone",
          `${input.targetMilestone} is not another milestone of this plan`,
        );
      }
      const before = source.transition_condition;
      const active = plan.active_milestone_id === source.id && !source.paused_at;
      await store.updateMilestone(change.db, source.id, {
        transition_condition: input.transitionCondition,
        progression_target: target.id,
        progression_due_at:
          active && source.started_at ? this.due(source.started_at, input.transitionCondition) : null,
      });
      const data = { ...milestoneData(plan, source), ...input };
      if (before) {
        change.record({
          type: "milestone-progression-updated",
          ...subject(flag, place.environment),
          data,
          preData: {
            ...milestoneData(plan, source),
            targetMilestone: source.progression_target,
            transitionCondition: before,
          },
        });
      } else {
        change.record({ type: "milestone-progression-created", ...subject(flag, place.environment), data });
      }
    });
  }

  async deleteProgression(actor: Actor, place: EnvironmentParams, sourceMilestoneId: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const { plan, source } = await this.progressionSource(change.db, place, sourceMilestoneId);
      if (!source.transition_condition) throw notFound(`Milestone ${source.name} has no progression`);
      await store.updateMilestone(change.db, source.id, {
        transition_condition: null,
        progression_target: null,
        progression_due_at: null,
      });
      change.record({
        type: "milestone-progression-deleted",
        ...subject(flag, place.environment),
        preData: {
          ...milestoneData(plan, source),
          targetMilestone: source.progression_target,
          transitionCondition: source.transition_condition,
        },
      });
    });
  }

  /** Resumes a plan's paused progression: its active milestone hands over a full interval from now. */
  async resume(actor: Actor, place: EnvironmentParams, planId: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.gate(change, place);
      const plan = await this.lock(change.db, place, planId);
      const active = (await store.milestones(change.db, [plan.id])).find(
        (milestone) => milestone.id === plan.active_milestone_id,
      );
      if (!active?.paused_at) throw conflict(`The progressions of release plan ${plan.name} are not paused`);
      await store.updateMilestone(change.db, active.id, {
        paused_at: null,
        progression_due_at: active.transition_condition
          ? this.due(new Date(), active.transition_condition)
          : null,
      });
      change.record({
        type: "release-plan-progressions-resumed",
        ...subject(flag, place.environment),
        data: { planId: plan.id, milestoneId: active.id },
      });
    });
  }

  /**
   * Pauses the plan's progression within a change already open (a safeguard's): answers
   * whether it was running, so that a safeguard acts once.
   */
  pause(change: Change, planId: string, safeguardId: string): Promise<boolean> {
    return this.pauseRunning(change, planId, { safeguardId });
  }

  private async pauseRunning(
    change: Change,
    planId: string,
    why: { safeguardId: string } | { reason: string },
  ): Promise<boolean> {
    const plan = await store.lockPlan(change.db, planId);
    if (!plan?.active_milestone_id) return false;
    const active = (await store.milestones(change.db, [plan.id])).find(
      (milestone) => milestone.id === plan.active_milestone_id,
    );
    if (!active || active.paused_at) return false;
    const flag = await this.links.flags.find(change.db, plan.feature_name!);
    if (!flag) return false;
    await store.updateMilestone(change.db, active.id, { paused_at: new Date(), progression_due_at: null });
    change.record({
      type: "release-plan-progressions-paused",
      ...subject(flag, plan.environment!),
      data: { planId: plan.id, milestoneId: active.id, ...why },
    });
    return true;
  }

  /** Whether the plan is serving a milestone whose progression runs: what a plan's safeguard watches over. */
  async running(db: Db, planId: string): Promise<boolean> {
    const plan = await store.definition(db, planId, "plan");
    if (!plan?.active_milestone_id) return false;
    const active = (await store.milestones(db, [plan.id])).find(
      (milestone) => milestone.id === plan.active_milestone_id,
    );
    return active !== undefined && active.paused_at === null;
  }

  /** When the next progression falls due, if any. */
  nextDue(): Promise<Date | undefined> {
    return store.nextDue(this.db);
  }

  /**
   * Hands one due milestone over to its target; answers whether it settled one. The system
   * acts, as the reviewed plan's own step in an environment that requires change requests.
   */
  async advanceDue(now = new Date()): Promise<boolean> {
    const due = await store.firstDue(this.db, now);
    if (!due) return false;
    const plan = await store.definition(this.db, due.release_plan_definition_id, "plan");
    const flag = plan && (await this.links.flags.find(this.db, plan.feature_name!));
    if (!plan || !flag || flag.archived || plan.active_milestone_id !== due.id) {
      // Nothing to hand over to any more: the plan moved on, or its flag is archived.
      await store.updateMilestone(this.db, due.id, { progression_due_at: null });
      return true;
    }
    await this.handOver(flag, plan.id, due.id, now).catch((error: Error) =>
      // A step that cannot be taken (a segment it serves deleted, the environment gone from
      // the project) pauses the plan, saying why, rather than being tried again and again.
      this.events.change(system(), async (change) => {
        const paused = await this.pauseRunning(change, plan.id, { reason: error.message });
        if (!paused) await store.updateMilestone(change.db, due.id, { progression_due_at: null });
      }),
    );
    return true;
  }

  private handOver(flag: FlagRef, planId: string, milestoneId: string, now: Date): Promise<void> {
    return this.events.change(
      system(),
      async (change) => {
        const locked = await store.lockPlan(change.db, planId);
        const milestones = await store.milestones(change.db, [planId]);
        const source = milestones.find((milestone) => milestone.id === milestoneId);
        // Another instance handed it over first, or someone changed the plan meanwhile.
        if (!locked || !source?.progression_due_at || source.progression_due_at > now) return;
        if (locked.active_milestone_id !== source.id || source.paused_at) {
          await store.updateMilestone(change.db, source.id, { progression_due_at: null });
          return;
        }
        await store.updateMilestone(change.db, source.id, {
          progression_due_at: null,
          progression_executed_at: now,
        });
        const target =
          milestones.find((milestone) => milestone.id === source.progression_target) ??
          milestones.find((milestone) => milestone.sort_order > source.sort_order);
        if (target) await this.start(change, flag, locked, milestones, target, true);
      },
      { reviewed: flag.project },
    );
  }

  private async start(
    change: Change,
    flag: FlagRef,
    plan: DefinitionRow,
    milestones: MilestoneRow[],
    milestone: MilestoneRow,
    automatic: boolean,
  ): Promise<void> {
    const previous = milestones.find((candidate) => candidate.id === plan.active_milestone_id);
    // Added before the old ones go, so the environment is never left without a strategy
    // (which would switch the flag off there).
    const old = (await this.links.strategies.ofFlags(change.db, [flag.name])).filter(
      (entry) => entry.environment === plan.environment,
    );
    await this.links.strategies.addAll(
      change.actor,
      flag.project,
      plan.environment!,
      milestone.strategies.map(({ id: _id, sortOrder: _order, ...strategy }) => ({
        featureName: flag.name,
        // Checked when the template was written, and again as any strategy is when added.
        input: strategy as StrategyInput,
      })),
    );
    await this.links.strategies.removeAll(
      change.actor,
      flag.project,
      plan.environment!,
      old.map(({ strategy }) => ({ featureName: flag.name, id: strategy.id })),
    );
    const now = new Date();
    if (previous && previous.id !== milestone.id) {
      await store.updateMilestone(change.db, previous.id, { progression_due_at: null, paused_at: null });
    }
    await store.updateMilestone(change.db, milestone.id, {
      started_at: now,
      paused_at: null,
      progression_executed_at: null,
      progression_due_at: milestone.transition_condition
        ? this.due(now, milestone.transition_condition)
        : null,
    });
    await store.updateDefinition(change.db, plan.id, { active_milestone_id: milestone.id });
    change.record({
      type: "release-plan-milestone-started",
      ...subject(flag, plan.environment!),
      data: { ...milestoneData(plan, milestone), automatic },
      ...(previous && { preData: milestoneData(plan, previous) }),
    });
  }

  private due(from: Date, condition: { intervalMinutes: number }): Date {
    return new Date(from.getTime() + condition.intervalMinutes * this.timing.minuteMs);
  }

  /** The flag, after refusing a direct change where the environment requires change requests. */
  private async gate(change: Change, place: EnvironmentParams): Promise<FlagRef> {
    const flag = await this.links.flags.locate(change.db, place);
    await refuseUnreviewed(change, flag.project, [place.environment]);
    return flag;
  }

  /** The plan, which must be the flag's in that environment. */
  async require(db: Db, place: EnvironmentParams, id: string): Promise<DefinitionRow> {
    const plan = await store.definition(db, id, "plan");
    if (!plan || plan.feature_name !== place.featureName || plan.environment !== place.environment) {
      throw missingPlan(id, place);
    }
    return plan;
  }

  private async lock(db: Db, place: EnvironmentParams, id: string): Promise<DefinitionRow> {
    await this.require(db, place, id);
    return (await store.lockPlan(db, id))!;
  }

  private async progressionSource(db: Db, place: EnvironmentParams, milestoneId: string) {
    const plan = (await store.plansOf(db, [place.featureName], place.environment))[0];
    if (!plan) throw notFound(`${place.featureName} has no release plan in ${place.environment}`);
    await store.lockPlan(db, plan.id);
    const milestones = await store.milestones(db, [plan.id]);
    const source = milestones.find((milestone) => milestone.id === milestoneId);
    if (!source) throw missingMilestone(milestoneId);
    return { plan, milestones, source };
  }

  private async view(db: Db, row: DefinitionRow): Promise<Plan> {
    return planView(
      row,
      await store.milestones(db, [row.id]),
      await store.safeguardsOf(db, [row.feature_name!], row.environment!),
    );
  }
}
