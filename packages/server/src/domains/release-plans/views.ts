import { SYSTEM_USER_ID } from "../../access/actor.js";
import type { EnvironmentSafeguard, Milestone, Plan, PlanSafeguard, Template } from "./schemas.js";
import type { DefinitionRow, MilestoneRow, SafeguardRow } from "./store.js";

const time = (at: Date | null) => (at ? at.toISOString() : null);

/** Milestones in order; each one's `targetMilestone`, where its progression would hand over. */
function milestoneViews(rows: MilestoneRow[]): Milestone[] {
  return rows.map((row, index) => ({
    ...milestoneView(row),
    targetMilestone: row.progression_target ?? rows[index + 1]?.id ?? null,
  }));
}

function milestoneView(row: MilestoneRow): Omit<Milestone, "targetMilestone"> {
  return {
    id: row.id,
    name: row.name,
    sortOrder: row.sort_order,
    releasePlanDefinitionId: row.release_plan_definition_id,
    startedAt: time(row.started_at),
    pausedAt: time(row.paused_at),
    progressionExecutedAt: time(row.progression_executed_at),
    progressionDueAt: time(row.progression_due_at),
    transitionCondition: row.transition_condition,
    strategies: row.strategies.map((strategy) => ({
      ...strategy,
      milestoneId: row.id,
      strategyName: strategy.name,
    })),
  };
}

function definitionFields(row: DefinitionRow, milestones: MilestoneRow[]) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id ?? SYSTEM_USER_ID,
    milestones: milestoneViews(milestones),
  };
}

export function templateView(row: DefinitionRow, milestones: MilestoneRow[]): Template {
  return {
    ...definitionFields(row, milestones),
    discriminator: "template",
    archivedAt: time(row.archived_at),
  };
}

export function planView(row: DefinitionRow, milestones: MilestoneRow[], safeguards: SafeguardRow[]): Plan {
  return {
    ...definitionFields(row, milestones),
    discriminator: "plan",
    featureName: row.feature_name!,
    environment: row.environment!,
    activeMilestoneId: row.active_milestone_id,
    releasePlanTemplateId: row.release_plan_template_id ?? "",
    safeguards: safeguards.filter((safeguard) => safeguard.release_plan_id === row.id).map(planSafeguardView),
  };
}

export function planSafeguardView(row: SafeguardRow): PlanSafeguard {
  return {
    id: row.id,
    impactMetric: row.impact_metric,
    triggerCondition: row.trigger_condition,
    triggeredAt: time(row.triggered_at),
    action: { type: "pauseReleasePlanProgressions", id: row.release_plan_id! },
  };
}

export function environmentSafeguardView(row: SafeguardRow): EnvironmentSafeguard {
  return {
    id: row.id,
    impactMetric: row.impact_metric,
    triggerCondition: row.trigger_condition,
    triggeredAt: time(row.triggered_at),
    action: {
      type: "disableFeatureEnvironment",
      project: row.project,
      featureName: row.feature_name,
      environment: row.environment,
    },
  };
}

export const safeguardView = (row: SafeguardRow) =>
  row.release_plan_id ? planSafeguardView(row) : environmentSafeguardView(row);

/** Where a plan's or safeguard's event happened. */
export const subject = (flag: { name: string; project: string }, environment: string) => ({
  project: flag.project,
  featureName: flag.name,
  environment,
});
