import { describe, expect, it } from "vitest";
import type { Flag } from "../flags/queries";
import type { EnvironmentSafeguard, Milestone, Plan, Template } from "../release-plans/queries";
import { describeChange, flagChangeDiff } from "./change-diff";
import type { ReleaseContext } from "./release-diff";

const rollout = (milestoneId: string, percent: string) => ({
  id: `${milestoneId}-s`,
  milestoneId,
  sortOrder: 0,
  name: "flexibleRollout",
  strategyName: "flexibleRollout",
  title: null,
  disabled: false,
  parameters: { rollout: percent },
  constraints: [],
  segments: [],
  variants: [],
});

const milestone = (id: string, name: string, sortOrder: number, at: Partial<Milestone> = {}): Milestone => ({
  id,
  name,
  sortOrder,
  releasePlanDefinitionId: "p1",
  startedAt: null,
  pausedAt: null,
  progressionExecutedAt: null,
  progressionDueAt: null,
  targetMilestone: null,
  transitionCondition: null,
  strategies: [rollout(id, String((sortOrder + 1) * 50))],
  ...at,
});

const metric = {
  id: "m",
  metricName: "unleash_counter_errors",
  timeRange: "hour" as const,
  aggregationMode: "count" as const,
  labelSelectors: { appName: ["shop"] },
};

const plan: Plan = {
  id: "p1",
  discriminator: "plan",
  name: "Gradual",
  description: null,
  featureName: "checkout",
  environment: "production",
  createdAt: "2026-03-01T12:00:00.000Z",
  createdByUserId: 1,
  activeMilestoneId: "a",
  releasePlanTemplateId: "t1",
  milestones: [
    milestone("b", "Everyone", 1),
    milestone("a", "Half", 0, {
      startedAt: "2026-03-01T12:00:00.000Z",
      pausedAt: "2026-03-01T12:10:00.000Z",
      transitionCondition: { intervalMinutes: 90 },
    }),
  ],
  safeguards: [
    {
      id: "g1",
      impactMetric: metric,
      triggerCondition: { operator: ">", threshold: 0 },
      triggeredAt: null,
      action: { type: "pauseReleasePlanProgressions", id: "p1" },
    },
  ],
};

const environmentSafeguard: EnvironmentSafeguard = {
  id: "g2",
  impactMetric: metric,
  triggerCondition: { operator: ">", threshold: 10 },
  triggeredAt: null,
  action: {
    type: "disableFeatureEnvironment",
    project: "web",
    featureName: "checkout",
    environment: "production",
  },
};

const template = {
  id: "t2",
  name: "Careful",
  milestones: [milestone("x", "Tenth", 0)],
} as unknown as Template;

const flag = {
  name: "checkout",
  archived: false,
  dependencies: [],
  environments: [
    {
      name: "production",
      enabled: true,
      variants: [],
      strategies: [
        { id: "s1", name: "flexibleRollout", title: null, sortOrder: 0, parameters: { rollout: "50" } },
      ],
    },
  ],
} as unknown as Flag;

const context: ReleaseContext = { plan, environmentSafeguard, templates: [template] };
const describe_ = (action: string, payload: unknown) =>
  describeChange(action, payload, "production", context);
const diff = (action: string, payload: unknown) =>
  flagChangeDiff(action, payload, flag, "production", context);
const safeguard = {
  impactMetric: { ...metric, id: undefined, labelSelectors: {} },
  triggerCondition: { operator: "<", threshold: 3 },
};

describe("release changes in a change request", () => {
  it("are headed by what they do, naming templates, plans and milestones rather than their ids", () => {
    expect(describe_("addReleasePlan", { templateId: "t2" })).toBe("Add release plan Careful in production");
    expect(describe_("deleteReleasePlan", { planId: "p1" })).toBe("Remove Gradual from production");
    expect(describe_("startMilestone", { milestoneId: "b" })).toBe("Start milestone Everyone");
    expect(
      describe_("changeMilestoneProgression", {
        sourceMilestone: "a",
        targetMilestone: "b",
        transitionCondition: { intervalMinutes: 30 },
      }),
    ).toBe("Advance from Half to Everyone after 30 minutes");
    expect(describe_("deleteMilestoneProgression", { sourceMilestone: "a" })).toBe(
      "Stop Half advancing on its own",
    );
    expect(describe_("resumeMilestoneProgression", { planId: "p1" })).toBe("Resume Gradual");
    expect(describe_("changeReleasePlanSafeguard", { planId: "p1", safeguard })).toBe(
      "Set the safeguard of Gradual: Count of unleash_counter_errors below 3",
    );
    expect(describe_("deleteReleasePlanSafeguard", { planId: "p1", safeguardId: "g1" })).toBe(
      "Remove the safeguard of Gradual",
    );
    expect(describe_("changeFeatureEnvSafeguard", { safeguard })).toBe(
      "Set the safeguard of production: Count of unleash_counter_errors below 3",
    );
    expect(describe_("deleteFeatureEnvSafeguard", { safeguardId: "g2" })).toBe(
      "Remove the safeguard of production",
    );
  });

  it("name ids where nothing is known of them: a closed request, a plan removed since", () => {
    expect(describeChange("startMilestone", { milestoneId: "m9" }, "production")).toBe(
      "Start milestone milestone m9",
    );
    expect(describeChange("addReleasePlan", { templateId: "t9" }, "production")).toBe(
      "Add release plan t9 in production",
    );
  });

  it("show a plan added by the milestones it will run", () => {
    expect(diff("addReleasePlan", { templateId: "t2" })).toEqual({
      before: {
        plan: "Gradual",
        activeMilestone: "Half",
        milestones: [
          { name: "Half", serves: ["flexibleRollout 50%"], advancesAfter: "1 hour 30 minutes" },
          { name: "Everyone", serves: ["flexibleRollout 100%"], advancesAfter: null },
        ],
        safeguard: "Count of unleash_counter_errors above 0 (appName: shop)",
      },
      after: {
        plan: "Careful",
        activeMilestone: null,
        milestones: [{ name: "Tenth", serves: ["flexibleRollout 50%"], advancesAfter: null }],
      },
    });
  });

  it("show starting a milestone as the strategies it replaces and those it serves", () => {
    expect(diff("startMilestone", { milestoneId: "b" })).toEqual({
      before: { activeMilestone: "Half", serves: ["flexibleRollout 50%"] },
      after: { activeMilestone: "Everyone", serves: ["flexibleRollout 100%"] },
    });
  });

  it("show progressions by their wait, and resuming by the pause it ends", () => {
    expect(
      diff("changeMilestoneProgression", {
        sourceMilestone: "a",
        targetMilestone: "b",
        transitionCondition: { intervalMinutes: 30 },
      }),
    ).toEqual({
      before: { milestone: "Half", advancesAfter: "1 hour 30 minutes" },
      after: { milestone: "Half", advancesTo: "Everyone", advancesAfter: "30 minutes" },
    });
    expect(diff("deleteMilestoneProgression", { sourceMilestone: "a" })).toEqual({
      before: { milestone: "Half", advancesAfter: "1 hour 30 minutes" },
      after: { milestone: "Half", advancesAfter: null },
    });
    expect(diff("resumeMilestoneProgression", { planId: "p1" })).toEqual({
      before: { plan: "Gradual", pausedSince: "2026-03-01T12:10:00.000Z" },
      after: { plan: "Gradual", pausedSince: null },
    });
  });

  it("show safeguards by what they watch and when they act, the environment's against the environment's", () => {
    expect(diff("changeFeatureEnvSafeguard", { safeguard })).toEqual({
      before: {
        metric: "unleash_counter_errors",
        aggregation: "Count",
        labels: { appName: ["shop"] },
        actsWhen: "> 10",
        chartRange: "hour",
      },
      after: {
        metric: "unleash_counter_errors",
        aggregation: "Count",
        labels: {},
        actsWhen: "< 3",
        chartRange: "hour",
      },
    });
    expect(diff("deleteReleasePlanSafeguard", { planId: "p1", safeguardId: "g1" })).toMatchObject({
      before: { actsWhen: "> 0" },
      after: null,
    });
  });
});
