import { AGGREGATIONS } from "../impact-metrics/metric-draft";
import { minutesText } from "../release-plans/plans/countdown";
import type {
  EnvironmentSafeguard,
  Milestone,
  Plan,
  SafeguardInput,
  Template,
} from "../release-plans/queries";
import { describeSafeguard } from "../release-plans/safeguards/safeguard-draft";

/** The change-request actions of release management, as the service names them. */
export const RELEASE_ACTIONS: ReadonlySet<string> = new Set([
  "addReleasePlan",
  "deleteReleasePlan",
  "startMilestone",
  "changeMilestoneProgression",
  "deleteMilestoneProgression",
  "resumeMilestoneProgression",
  "changeReleasePlanSafeguard",
  "deleteReleasePlanSafeguard",
  "changeFeatureEnvSafeguard",
  "deleteFeatureEnvSafeguard",
]);

/** A strategy as a reviewer reads it at a glance. */
interface StrategyLike {
  name: string;
  title?: string | null;
  parameters?: Record<string, string>;
  sortOrder?: number;
}

/**
 * What a release change is read against, as it is now: the flag's plan in the request's
 * environment, the environment's strategies and safeguard, and the templates a plan is made
 * from. Anything missing (a closed request, a plan removed since): the change names ids.
 */
export interface ReleaseContext {
  plan?: Plan | undefined;
  strategies?: StrategyLike[] | undefined;
  environmentSafeguard?: EnvironmentSafeguard | undefined;
  templates?: Template[] | undefined;
}

type Payload = Record<string, unknown>;
const record = (value: unknown): Payload =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Payload) : {};
const text = (value: unknown) => (typeof value === "string" ? value : String(value ?? ""));

const serves = (strategies: StrategyLike[]) =>
  [...strategies]
    .sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0))
    .map((strategy) => {
      const rollout = strategy.name === "flexibleRollout" ? ` ${strategy.parameters?.rollout ?? "100"}%` : "";
      return `${strategy.title || strategy.name}${rollout}`;
    });

const ordered = (milestones: Milestone[]) => [...milestones].sort((a, b) => a.sortOrder - b.sortOrder);

const milestonesShape = (milestones: Milestone[]) =>
  ordered(milestones).map((milestone) => ({
    name: milestone.name,
    serves: serves(milestone.strategies),
    advancesAfter: milestone.transitionCondition
      ? minutesText(milestone.transitionCondition.intervalMinutes)
      : null,
  }));

const planShape = (plan: Plan) => ({
  plan: plan.name,
  activeMilestone: plan.milestones.find((milestone) => milestone.id === plan.activeMilestoneId)?.name ?? null,
  milestones: milestonesShape(plan.milestones),
  safeguard: plan.safeguards[0] ? describeSafeguard(plan.safeguards[0]) : null,
});

const safeguardShape = (safeguard: Pick<SafeguardInput, "impactMetric" | "triggerCondition">) => ({
  metric: safeguard.impactMetric.metricName,
  aggregation: AGGREGATIONS[safeguard.impactMetric.aggregationMode] ?? safeguard.impactMetric.aggregationMode,
  labels: safeguard.impactMetric.labelSelectors,
  actsWhen: `${safeguard.triggerCondition.operator} ${safeguard.triggerCondition.threshold}`,
  chartRange: safeguard.impactMetric.timeRange,
});

/** A safeguard a change carries, if it carries a well-formed one. */
const carriedSafeguard = (value: unknown) => {
  const safeguard = record(value);
  const metric = record(safeguard.impactMetric);
  const trigger = record(safeguard.triggerCondition);
  if (typeof metric.metricName !== "string" || typeof trigger.threshold !== "number") return undefined;
  return {
    impactMetric: { labelSelectors: {}, ...metric },
    triggerCondition: trigger,
  } as unknown as Pick<SafeguardInput, "impactMetric" | "triggerCondition">;
};

function names(context: ReleaseContext) {
  const milestones = context.plan?.milestones ?? [];
  return {
    milestone: (id: unknown) => milestones.find((milestone) => milestone.id === id),
    milestoneName: (id: unknown) =>
      milestones.find((milestone) => milestone.id === id)?.name ?? `milestone ${text(id)}`,
    plan: (id: unknown) =>
      context.plan && (id === undefined || context.plan.id === id)
        ? context.plan.name
        : `release plan ${text(id)}`,
    template: (id: unknown) => context.templates?.find((template) => template.id === id),
  };
}

/** One line saying what a release change does, for its heading. */
export function describeReleaseChange(
  action: string,
  rawPayload: unknown,
  environment: string,
  context: ReleaseContext = {},
): string {
  const payload = record(rawPayload);
  const named = names(context);
  const safeguard = carriedSafeguard(payload.safeguard);
  switch (action) {
    case "addReleasePlan":
      return `Add release plan ${named.template(payload.templateId)?.name ?? text(payload.templateId)} in ${environment}`;
    case "deleteReleasePlan":
      return `Remove ${named.plan(payload.planId)} from ${environment}`;
    case "startMilestone":
      return `Start milestone ${named.milestoneName(payload.milestoneId)}`;
    case "changeMilestoneProgression": {
      const condition = record(payload.transitionCondition);
      const minutes =
        typeof condition.intervalMinutes === "number" ? minutesText(condition.intervalMinutes) : "a while";
      return `Advance from ${named.milestoneName(payload.sourceMilestone)} to ${named.milestoneName(payload.targetMilestone)} after ${minutes}`;
    }
    case "deleteMilestoneProgression":
      return `Stop ${named.milestoneName(payload.sourceMilestone)} advancing on its own`;
    case "resumeMilestoneProgression":
      return `Resume ${named.plan(payload.planId)}`;
    case "changeReleasePlanSafeguard":
      return `Set the safeguard of ${named.plan(payload.planId)}${safeguard ? `: ${describeSafeguard(safeguard)}` : ""}`;
    case "deleteReleasePlanSafeguard":
      return `Remove the safeguard of ${named.plan(payload.planId)}`;
    case "changeFeatureEnvSafeguard":
      return `Set the safeguard of ${environment}${safeguard ? `: ${describeSafeguard(safeguard)}` : ""}`;
    case "deleteFeatureEnvSafeguard":
      return `Remove the safeguard of ${environment}`;
    default:
      return action;
  }
}

/**
 * What a release change would do, as before and after a reviewer reads side by side: plans
 * by their milestones and what each serves, progressions by their wait, safeguards by what
 * they watch.
 */
export function releaseChangeDiff(
  action: string,
  rawPayload: unknown,
  context: ReleaseContext = {},
): { before: unknown; after: unknown } {
  const payload = record(rawPayload);
  const { plan } = context;
  const named = names(context);
  const condition = (milestone: Milestone | undefined) =>
    milestone?.transitionCondition ? minutesText(milestone.transitionCondition.intervalMinutes) : null;
  const planSafeguard = plan?.safeguards[0];
  const carried = carriedSafeguard(payload.safeguard);
  switch (action) {
    case "addReleasePlan": {
      const template = named.template(payload.templateId);
      return {
        before: plan ? planShape(plan) : null,
        after: template
          ? { plan: template.name, activeMilestone: null, milestones: milestonesShape(template.milestones) }
          : { template: payload.templateId },
      };
    }
    case "deleteReleasePlan":
      return { before: plan ? planShape(plan) : null, after: null };
    case "startMilestone": {
      const milestone = named.milestone(payload.milestoneId);
      const active = plan && named.milestone(plan.activeMilestoneId);
      return {
        before: { activeMilestone: active?.name ?? null, serves: serves(context.strategies ?? []) },
        after: {
          activeMilestone: named.milestoneName(payload.milestoneId),
          serves: milestone ? serves(milestone.strategies) : "the milestone's strategies",
        },
      };
    }
    case "changeMilestoneProgression": {
      const source = named.milestone(payload.sourceMilestone);
      const wanted = record(payload.transitionCondition);
      return {
        before: { milestone: named.milestoneName(payload.sourceMilestone), advancesAfter: condition(source) },
        after: {
          milestone: named.milestoneName(payload.sourceMilestone),
          advancesTo: named.milestoneName(payload.targetMilestone),
          advancesAfter:
            typeof wanted.intervalMinutes === "number" ? minutesText(wanted.intervalMinutes) : null,
        },
      };
    }
    case "deleteMilestoneProgression": {
      const milestone = named.milestoneName(payload.sourceMilestone);
      return {
        before: { milestone, advancesAfter: condition(named.milestone(payload.sourceMilestone)) },
        after: { milestone, advancesAfter: null },
      };
    }
    case "resumeMilestoneProgression": {
      const active = plan && named.milestone(plan.activeMilestoneId);
      return {
        before: { plan: named.plan(payload.planId), pausedSince: active?.pausedAt ?? null },
        after: { plan: named.plan(payload.planId), pausedSince: null },
      };
    }
    case "changeReleasePlanSafeguard":
      return {
        before: planSafeguard ? safeguardShape(planSafeguard) : null,
        after: carried ? safeguardShape(carried) : payload.safeguard,
      };
    case "deleteReleasePlanSafeguard":
      return { before: planSafeguard ? safeguardShape(planSafeguard) : null, after: null };
    case "changeFeatureEnvSafeguard":
      return {
        before: context.environmentSafeguard ? safeguardShape(context.environmentSafeguard) : null,
        after: carried ? safeguardShape(carried) : payload.safeguard,
      };
    case "deleteFeatureEnvSafeguard":
      return {
        before: context.environmentSafeguard ? safeguardShape(context.environmentSafeguard) : null,
        after: null,
      };
    default:
      return { before: null, after: rawPayload };
  }
}
