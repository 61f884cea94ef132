import { GRADUAL_ROLLOUT } from "../../flags/strategies/strategy-draft";
import type { Milestone, Plan } from "../queries";

/** Where a milestone is in its plan's run. */
export type MilestoneState = "done" | "skipped" | "active" | "paused" | "waiting";

export const STATE_LABELS: Record<MilestoneState, string> = {
  done: "Done",
  skipped: "Skipped",
  active: "Active",
  paused: "Paused",
  waiting: "Waiting",
};

/** The plan's milestones in the order they run. */
export const ordered = (plan: Pick<Plan, "milestones">): Milestone[] =>
  [...plan.milestones].sort((a, b) => a.sortOrder - b.sortOrder);

/**
 * Each milestone's state: those before the active one done (or skipped, when someone started
 * a later one first), the active one active or paused by a safeguard, those after waiting.
 * Nothing started yet: all waiting.
 */
export function milestoneStates(
  plan: Pick<Plan, "milestones" | "activeMilestoneId">,
): Map<string, MilestoneState> {
  const milestones = ordered(plan);
  const at = milestones.findIndex((milestone) => milestone.id === plan.activeMilestoneId);
  return new Map(
    milestones.map((milestone, index): [string, MilestoneState] => {
      if (at === -1 || index > at) return [milestone.id, "waiting"];
      if (index === at) return [milestone.id, milestone.pausedAt ? "paused" : "active"];
      return [milestone.id, milestone.startedAt ? "done" : "skipped"];
    }),
  );
}

/** The plan's active milestone, if one is running. */
export const activeMilestone = (plan: Pick<Plan, "milestones" | "activeMilestoneId">) =>
  plan.milestones.find((milestone) => milestone.id === plan.activeMilestoneId);

/** What a milestone serves, in a few words: "Gradual rollout 10%", "Gradual rollout 50% and 1 more". */
export function milestoneSummary(
  milestone: Milestone,
  label: (strategy: { name: string; title: string | null }) => string,
) {
  const [first, ...rest] = [...milestone.strategies].sort((a, b) => a.sortOrder - b.sortOrder);
  if (!first) return "No strategies";
  const rollout = first.name === GRADUAL_ROLLOUT ? ` ${first.parameters.rollout ?? "100"}%` : "";
  return `${label(first)}${rollout}${rest.length > 0 ? ` and ${rest.length} more` : ""}`;
}
