import { type Static, Type } from "typebox";
import { Constraint, Nullable, StoredConstraint } from "../../shared/schemas.js";
import { StrategyVariants } from "../../shared/variant.js";
import { StoredVariant } from "../features/variants/schemas.js";
import { AGGREGATION_MODES, TIME_RANGES } from "../impact-metrics/schemas.js";

// Shapes of the reference's OpenAPI schemas (release-plan-*, safeguard-*, milestone-progression-*):
// its open-source build serves none of these routes, so they come from its schemas, not a server.

const Parameters = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

/** The reference's `transitionConditionSchema`: hand over to the next milestone after so many minutes. */
export const TransitionCondition = Type.Object({ intervalMinutes: Type.Integer({ minimum: 1 }) });
export type TransitionCondition = Static<typeof TransitionCondition>;

/** A strategy a milestone will serve, as a template's milestone is written with it. */
export const MilestoneStrategyInput = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
  // The reference's older spelling of `name`.
  strategyName: Type.Optional(Type.String({ minLength: 1 })),
  title: Type.Optional(Nullable(Type.String())),
  disabled: Type.Optional(Nullable(Type.Boolean())),
  sortOrder: Type.Optional(Type.Integer()),
  parameters: Type.Optional(Parameters),
  constraints: Type.Optional(Type.Array(Constraint)),
  segments: Type.Optional(Type.Array(Type.Integer())),
  variants: Type.Optional(StrategyVariants),
});
export type MilestoneStrategyInput = Static<typeof MilestoneStrategyInput>;

export const MilestoneInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  sortOrder: Type.Integer(),
  strategies: Type.Optional(Type.Array(MilestoneStrategyInput, { maxItems: 100 })),
  transitionCondition: Type.Optional(Nullable(TransitionCondition)),
});
export type MilestoneInput = Static<typeof MilestoneInput>;

export const TemplateInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  milestones: Type.Array(MilestoneInput, { maxItems: 50 }),
});
export type TemplateInput = Static<typeof TemplateInput>;

export const MilestoneStrategy = Type.Object({
  id: Type.String(),
  milestoneId: Type.String(),
  sortOrder: Type.Integer(),
  name: Type.String(),
  strategyName: Type.String(),
  title: Nullable(Type.String()),
  disabled: Type.Boolean(),
  parameters: Type.Record(Type.String(), Type.String()),
  constraints: Type.Array(StoredConstraint),
  segments: Type.Array(Type.Integer()),
  variants: Type.Array(StoredVariant),
});
export type MilestoneStrategy = Static<typeof MilestoneStrategy>;

export const Milestone = Type.Object({
  id: Type.String(),
  name: Type.String(),
  sortOrder: Type.Integer(),
  releasePlanDefinitionId: Type.String(),
  startedAt: Nullable(Type.String({ format: "date-time" })),
  pausedAt: Nullable(Type.String({ format: "date-time" })),
  progressionExecutedAt: Nullable(Type.String({ format: "date-time" })),
  /** Signalbox's addition: when this milestone hands over, while it is active and not paused. */
  progressionDueAt: Nullable(Type.String({ format: "date-time" })),
  /** Signalbox's addition: the milestone a progression hands over to (the next one unless set). */
  targetMilestone: Nullable(Type.String()),
  transitionCondition: Nullable(TransitionCondition),
  strategies: Type.Array(MilestoneStrategy),
});
export type Milestone = Static<typeof Milestone>;

export const Template = Type.Object({
  id: Type.String(),
  discriminator: Type.Literal("template"),
  name: Type.String(),
  description: Nullable(Type.String()),
  createdAt: Type.String({ format: "date-time" }),
  createdByUserId: Type.Integer(),
  archivedAt: Nullable(Type.String({ format: "date-time" })),
  milestones: Type.Array(Milestone),
});
export type Template = Static<typeof Template>;

export const SafeguardMetric = Type.Object({
  metricName: Type.String({ minLength: 1, maxLength: 255 }),
  timeRange: Type.Enum(TIME_RANGES),
  aggregationMode: Type.Enum(AGGREGATION_MODES),
  labelSelectors: Type.Record(Type.String(), Type.Array(Type.String(), { maxItems: 100 })),
  source: Type.Optional(Type.Union([Type.Literal("internal"), Type.Literal("external")])),
});

export const TriggerCondition = Type.Object({
  operator: Type.Union([Type.Literal(">"), Type.Literal("<")]),
  threshold: Type.Number(),
});

export const SafeguardInput = Type.Object({
  impactMetric: SafeguardMetric,
  triggerCondition: TriggerCondition,
});
export type SafeguardInput = Static<typeof SafeguardInput>;

const safeguardFields = {
  id: Type.String(),
  impactMetric: Type.Object({ id: Type.String(), ...SafeguardMetric.properties }),
  triggerCondition: TriggerCondition,
  /** Signalbox's addition: when the safeguard last acted, for the banner that says so. */
  triggeredAt: Nullable(Type.String({ format: "date-time" })),
};

export const PlanSafeguard = Type.Object({
  ...safeguardFields,
  action: Type.Object({ type: Type.Literal("pauseReleasePlanProgressions"), id: Type.String() }),
});
export type PlanSafeguard = Static<typeof PlanSafeguard>;

export const EnvironmentSafeguard = Type.Object({
  ...safeguardFields,
  action: Type.Object({
    type: Type.Literal("disableFeatureEnvironment"),
    project: Type.String(),
    featureName: Type.String(),
    environment: Type.String(),
  }),
});
export type EnvironmentSafeguard = Static<typeof EnvironmentSafeguard>;

export const Plan = Type.Object({
  id: Type.String(),
  discriminator: Type.Literal("plan"),
  name: Type.String(),
  description: Nullable(Type.String()),
  featureName: Type.String(),
  environment: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
  createdByUserId: Type.Integer(),
  activeMilestoneId: Nullable(Type.String()),
  releasePlanTemplateId: Type.String(),
  milestones: Type.Array(Milestone),
  safeguards: Type.Array(PlanSafeguard),
});
export type Plan = Static<typeof Plan>;

export const AddPlan = Type.Object({ templateId: Type.String({ minLength: 1 }) });

/** The reference's `changeMilestoneProgressionSchema`. */
export const ProgressionInput = Type.Object({
  targetMilestone: Type.String({ minLength: 1 }),
  transitionCondition: TransitionCondition,
});
export type ProgressionInput = Static<typeof ProgressionInput>;

export const TemplateParams = Type.Object({ templateId: Type.String() });
export const PlanParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  planId: Type.String(),
});
export const MilestoneParams = Type.Object({ ...PlanParams.properties, milestoneId: Type.String() });
export const ProgressionParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  sourceMilestoneId: Type.String(),
});
export const PlanSafeguardParams = Type.Object({ ...PlanParams.properties, safeguardId: Type.String() });
export const EnvironmentSafeguardParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
  safeguardId: Type.String(),
});
