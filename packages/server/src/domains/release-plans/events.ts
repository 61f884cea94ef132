import type { EnvironmentSafeguard, Plan, PlanSafeguard, Template, TransitionCondition } from "./schemas.js";

/** What a milestone's start, and a progression's change, record. */
interface MilestoneData {
  planId: string;
  milestoneId: string;
  milestoneName: string;
}

declare module "../events/catalogue.js" {
  interface EventShapes {
    "release-plan-template-created": { data: Template };
    "release-plan-template-updated": { data: Template; preData: Template };
    "release-plan-template-deleted": { preData: Template };
    "release-plan-template-archived": { data: Template; preData: Template };
    "release-plan-added": { data: Plan };
    "release-plan-removed": { preData: Plan };
    /** `automatic`: the plan's progression started it, not a person. */
    "release-plan-milestone-started": {
      data: MilestoneData & { automatic: boolean };
      preData?: MilestoneData;
    };
    "milestone-progression-created": {
      data: MilestoneData & { targetMilestone: string; transitionCondition: TransitionCondition };
    };
    "milestone-progression-updated": {
      data: MilestoneData & { targetMilestone: string; transitionCondition: TransitionCondition };
      preData: MilestoneData & { targetMilestone: string | null; transitionCondition: TransitionCondition };
    };
    "milestone-progression-deleted": {
      preData: MilestoneData & { targetMilestone: string | null; transitionCondition: TransitionCondition };
    };
    /** Paused by a safeguard, or because the next step could not be taken (the reason). */
    "release-plan-progressions-paused": {
      data: { planId: string; milestoneId: string; safeguardId?: string; reason?: string };
    };
    "release-plan-progressions-resumed": { data: { planId: string; milestoneId: string } };
    "safeguard-changed": {
      data: PlanSafeguard | EnvironmentSafeguard;
      preData?: PlanSafeguard | EnvironmentSafeguard;
    };
    "safeguard-deleted": { preData: PlanSafeguard | EnvironmentSafeguard };
    /** The metric's value over the window, and what the safeguard did. */
    "safeguard-triggered": {
      data: { safeguard: PlanSafeguard | EnvironmentSafeguard; value: number; windowSeconds: number };
    };
  }
}
