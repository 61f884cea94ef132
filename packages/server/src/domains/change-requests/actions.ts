import { isDeepStrictEqual } from "node:util";
import { invalidField, noAccess, notFound } from "@signalbox/protocol";
import { type Static, type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Permission } from "../../access/permissions.js";
import type { Db } from "../../db/connection.js";
import { conform } from "../../shared/conform.js";
import { Dependency } from "../features/dependencies/schemas.js";
import { type DependencyService, missingParent } from "../features/dependencies/service.js";
import type { FlagEditingService } from "../features/editing/service.js";
import type { FlagService } from "../features/flags/service.js";
import { SortOrder, Strategy, type StrategyView } from "../features/strategies/schemas.js";
import type { StrategyService } from "../features/strategies/service.js";
import { Variants } from "../features/variants/schemas.js";
import type { VariantService } from "../features/variants/service.js";
import type { ReleasePlanService } from "../release-plans/plans.js";
import type { SafeguardService } from "../release-plans/safeguards.js";
import { type ProgressionInput, SafeguardInput, TransitionCondition } from "../release-plans/schemas.js";
import type { ReleaseTemplateService } from "../release-plans/templates.js";
import { SegmentBody } from "../segments/schemas.js";
import type { SegmentService } from "../segments/service.js";
import type { Action } from "./schemas.js";

/** The services a change is checked against and applied through: those a direct change uses. */
export interface Targets {
  flags: Pick<FlagService, "find" | "locate" | "variantsOf">;
  flagEditing: Pick<FlagEditingService, "setEnabled" | "archive">;
  strategies: Pick<StrategyService, "ofFlags" | "add" | "update" | "remove" | "reorder">;
  variants: Pick<VariantService, "set">;
  dependencies: Pick<DependencyService, "add" | "remove" | "parentsOf">;
  segments: Pick<SegmentService, "find" | "update" | "remove" | "requireUsable">;
  releaseTemplates: Pick<ReleaseTemplateService, "usable">;
  releasePlans: Pick<
    ReleasePlanService,
    "ofFlag" | "add" | "remove" | "startMilestone" | "changeProgression" | "deleteProgression" | "resume"
  >;
  safeguards: Pick<SafeguardService, "ofEnvironment" | "putOnPlan" | "putOnEnvironment" | "remove">;
}

/** Where a change applies: a project's environment, and the flag of a flag change. */
export interface Place {
  project: string;
  environment: string;
  feature: string | null;
}

interface Spec {
  /** What the payload must be, checked when the change is added. */
  schema: TSchema;
  /** What a direct change of this kind needs, in the request's project and environment. */
  permission: Permission | readonly Permission[];
  /** Whether the change is to a segment rather than a flag. */
  segment?: true;
  /**
   * Changes with the same key in one request are one change: a later one replaces it
   * (switching a flag on, then off, leaves "off"). None: every change is its own.
   */
  key?(payload: never): string;
  /**
   * Checks, for the author, the objects the payload names besides the flag: one they may
   * not see is answered as absent, and one outside the request's project is refused, since
   * the request's reviewers approve changes to their own project only.
   */
  check?(targets: Targets, db: Db, actor: Actor, place: Place, payload: never): Promise<void>;
  /**
   * What the change refers to besides its target, by name, as it is now: kept when the
   * change is drafted and compared when it is applied, so that what was reviewed is what
   * is applied. Segment edits cannot reach a gated environment before review, but a
   * segment that only a draft uses yet can be edited directly.
   */
  refs?(targets: Targets, db: Db, place: Place, payload: never): Promise<Refs>;
  /** The target as it is now, kept with the change to find conflicts against later. */
  snapshot?(targets: Targets, db: Db, place: Place, payload: never): Promise<unknown>;
  /** Why the change no longer fits its target, if it does not. */
  conflict?(
    targets: Targets,
    db: Db,
    place: Place,
    payload: never,
    snapshot: unknown,
  ): Promise<string | undefined>;
  apply(targets: Targets, actor: Actor, place: Place, payload: never): Promise<unknown>;
}

const flagPlace = (place: Place) => ({
  projectId: place.project,
  featureName: place.feature!,
  environment: place.environment,
});

/** What an edit of a strategy is measured against: everything but its position. */
const strategyState = ({ sortOrder: _order, featureName: _flag, ...state }: StrategyView) => state;

async function strategyNow(targets: Targets, db: Db, place: Place, id: string) {
  const all = await targets.strategies.ofFlags(db, [place.feature!]);
  return all.find((entry) => entry.environment === place.environment && entry.strategy.id === id)?.strategy;
}

async function strategyConflict(targets: Targets, db: Db, place: Place, id: string, snapshot: unknown) {
  const now = await strategyNow(targets, db, place, id);
  if (!now) return "The strategy has been deleted since this change was made.";
  if (snapshot && !isDeepStrictEqual(strategyState(now), snapshot)) {
    return "The strategy has been changed since this change was made.";
  }
  return undefined;
}

async function variantsNow(targets: Targets, db: Db, place: Place) {
  const all = await targets.flags.variantsOf(db, place.feature!);
  return all.find((entry) => entry.environment === place.environment)?.variants ?? [];
}

const segmentState = async (targets: Targets, db: Db, id: number) => {
  const segment = await targets.segments.find(db, id);
  return (
    segment && {
      name: segment.name,
      description: segment.description,
      project: segment.project,
      constraints: segment.constraints,
    }
  );
};

async function segmentConflict(targets: Targets, db: Db, id: number, snapshot: unknown) {
  const now = await segmentState(targets, db, id);
  if (!now) return "The segment has been deleted since this change was made.";
  if (snapshot && !isDeepStrictEqual(now, snapshot))
    return "The segment has been changed since this change was made.";
  return undefined;
}

/** What a change refers to, each entry under a name a person can read in a conflict. */
export type Refs = Record<string, unknown>;

async function segmentRefs(targets: Targets, db: Db, ids: readonly number[] = []): Promise<Refs> {
  const refs: Refs = {};
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    refs[`segment ${id}`] = (await segmentState(targets, db, id)) ?? null;
  }
  return refs;
}

/** What switching a flag on serves: its strategies there, in order, their segments, variants and parents. */
async function servedRefs(targets: Targets, db: Db, place: Place): Promise<Refs> {
  const strategies = (await targets.strategies.ofFlags(db, [place.feature!]))
    .filter((entry) => entry.environment === place.environment)
    .map(({ strategy: { featureName: _flag, ...strategy } }) => strategy);
  return {
    strategies,
    ...(await segmentRefs(
      targets,
      db,
      strategies.flatMap((strategy) => strategy.segments ?? []),
    )),
    variants: await variantsNow(targets, db, place),
    parents: await targets.dependencies.parentsOf(db, [place.feature!]),
  };
}

/** The names of the refs that differ between then and now. */
export function changedRefs(then: Refs, now: Refs): string[] {
  return [...new Set([...Object.keys(then), ...Object.keys(now)])].filter(
    (name) => !isDeepStrictEqual(then[name], now[name]),
  );
}

async function usableSegments(targets: Targets, db: Db, actor: Actor, place: Place, ids?: number[]) {
  await targets.segments.requireUsable(db, actor, place.project, [...new Set(ids ?? [])]);
}

/** A segment change in a request must be to a segment of the request's own project. */
async function ownSegment(targets: Targets, db: Db, actor: Actor, place: Place, id: number) {
  const segment = await targets.segments.find(db, id);
  if (!segment || (segment.project !== null && !canSee(actor, segment.project))) throw missingSegment(id);
  if (segment.project !== place.project) {
    const owner = segment.project === null ? "is global" : `belongs to project ${segment.project}`;
    throw noAccess(
      `Segment ${segment.name} (${id}) ${owner}: a change request of project ${place.project} can change only that project's segments.`,
    );
  }
}

/** The flag's release plan in the request's environment, as it is now. */
async function planNow(targets: Targets, db: Db, place: Place) {
  return (await targets.releasePlans.ofFlag(db, place.feature!)).find(
    (plan) => plan.environment === place.environment,
  );
}

async function requirePlan(targets: Targets, db: Db, place: Place, id?: string) {
  const plan = await planNow(targets, db, place);
  if (!plan || (id !== undefined && plan.id !== id)) {
    throw notFound(
      `${place.feature} has no release plan ${id ?? ""} in ${place.environment}`.replace("  ", " "),
    );
  }
  return plan;
}

async function requireMilestone(targets: Targets, db: Db, place: Place, id: string) {
  const plan = await requirePlan(targets, db, place);
  if (!plan.milestones.some((milestone) => milestone.id === id)) {
    throw notFound(`The release plan of ${place.feature} in ${place.environment} has no milestone ${id}`);
  }
  return plan;
}

/**
 * A plan change is reviewed against the plan as it was drafted: its milestones, their
 * strategies and timings, its safeguards. Anything else applied first is a conflict.
 */
const planChange = {
  snapshot: async (targets: Targets, db: Db, place: Place) => (await planNow(targets, db, place)) ?? null,
  conflict: async (targets: Targets, db: Db, place: Place, _payload: never, snapshot: unknown) => {
    const now = (await planNow(targets, db, place)) ?? null;
    if (isDeepStrictEqual(now, snapshot)) return undefined;
    return now
      ? "The release plan has been changed since this change was made."
      : "The release plan has been removed.";
  },
};

const environmentSafeguardNow = async (targets: Targets, db: Db, place: Place) =>
  (await targets.safeguards.ofEnvironment(db, place.feature!, place.environment)) ?? null;

const StrategyWithId = Type.Object({ ...Strategy.properties, id: Type.String({ minLength: 1 }) });
const StrategyRef = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
const SegmentWithId = Type.Object({ ...SegmentBody.properties, id: Type.Integer({ minimum: 1 }) });

type StrategyEdit = Static<typeof StrategyWithId>;
type SegmentEdit = Static<typeof SegmentWithId>;

/** Every action a change request can hold, as the reference names them. */
export const ACTION_SPECS: Record<Action, Spec> = {
  updateEnabled: {
    schema: Type.Object({
      enabled: Type.Boolean(),
      shouldActivateDisabledStrategies: Type.Optional(Type.Boolean()),
    }),
    permission: "UPDATE_FEATURE_ENVIRONMENT",
    key: () => "",
    // Switching off serves nothing, whatever the strategies have become.
    refs: async (targets, db, place, payload: { enabled: boolean }) =>
      payload.enabled ? servedRefs(targets, db, place) : {},
    apply: (
      targets,
      actor,
      place,
      payload: { enabled: boolean; shouldActivateDisabledStrategies?: boolean },
    ) =>
      targets.flagEditing.setEnabled(
        actor,
        flagPlace(place),
        payload.enabled,
        payload.shouldActivateDisabledStrategies ?? false,
      ),
  },
  addStrategy: {
    schema: Strategy,
    permission: "CREATE_FEATURE_STRATEGY",
    check: (targets, db, actor, place, payload: Static<typeof Strategy>) =>
      usableSegments(targets, db, actor, place, payload.segments),
    refs: (targets, db, _place, payload: Static<typeof Strategy>) =>
      segmentRefs(targets, db, payload.segments),
    apply: (targets, actor, place, payload: Static<typeof Strategy>) =>
      targets.strategies.add(actor, flagPlace(place), payload),
  },
  updateStrategy: {
    schema: StrategyWithId,
    permission: "UPDATE_FEATURE_STRATEGY",
    key: (payload: StrategyEdit) => payload.id,
    check: (targets, db, actor, place, payload: StrategyEdit) =>
      usableSegments(targets, db, actor, place, payload.segments),
    refs: (targets, db, _place, payload: StrategyEdit) => segmentRefs(targets, db, payload.segments),
    snapshot: async (targets, db, place, payload: StrategyEdit) => {
      const now = await strategyNow(targets, db, place, payload.id);
      if (!now) throw missingStrategy(payload.id, place);
      return strategyState(now);
    },
    conflict: (targets, db, place, payload: StrategyEdit, snapshot) =>
      strategyConflict(targets, db, place, payload.id, snapshot),
    apply: (targets, actor, place, { id, ...strategy }: StrategyEdit) =>
      targets.strategies.update(actor, flagPlace(place), id, strategy),
  },
  deleteStrategy: {
    schema: StrategyRef,
    permission: "DELETE_FEATURE_STRATEGY",
    key: (payload: { id: string }) => payload.id,
    snapshot: async (targets, db, place, payload: { id: string }) => {
      const now = await strategyNow(targets, db, place, payload.id);
      if (!now) throw missingStrategy(payload.id, place);
      return strategyState(now);
    },
    conflict: (targets, db, place, payload: { id: string }, snapshot) =>
      strategyConflict(targets, db, place, payload.id, snapshot),
    apply: (targets, actor, place, payload: { id: string }) =>
      targets.strategies.remove(actor, flagPlace(place), payload.id),
  },
  reorderStrategy: {
    schema: SortOrder,
    permission: "UPDATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: Static<typeof SortOrder>) => {
      for (const { id } of payload) {
        if (!(await strategyNow(targets, db, place, id))) throw missingStrategy(id, place);
      }
    },
    conflict: async (targets, db, place, payload: Static<typeof SortOrder>) => {
      for (const { id } of payload) {
        if (!(await strategyNow(targets, db, place, id)))
          return `Strategy ${id} has been deleted since this change was made.`;
      }
      return undefined;
    },
    apply: (targets, actor, place, payload: Static<typeof SortOrder>) =>
      targets.strategies.reorder(actor, flagPlace(place), payload),
  },
  patchVariant: {
    schema: Type.Object({ variants: Variants }),
    permission: "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
    key: () => "",
    snapshot: (targets, db, place) => variantsNow(targets, db, place),
    conflict: async (targets, db, place, _payload, snapshot) =>
      isDeepStrictEqual(await variantsNow(targets, db, place), snapshot)
        ? undefined
        : "The variants have been changed since this change was made.",
    apply: (targets, actor, place, payload: { variants: Static<typeof Variants> }) =>
      targets.variants.set(actor, place.project, place.feature!, [place.environment], {
        variants: payload.variants,
      }),
  },
  archiveFeature: {
    schema: Type.Object({}),
    permission: "DELETE_FEATURE",
    key: () => "",
    apply: (targets, actor, place) => targets.flagEditing.archive(actor, place.project, [place.feature!]),
  },
  addDependency: {
    schema: Dependency,
    permission: "UPDATE_FEATURE_DEPENDENCY",
    key: (payload: { feature: string }) => payload.feature,
    check: async (targets, db, actor, place, payload: { feature: string }) => {
      const parent = await targets.flags.find(db, payload.feature);
      if (!parent || parent.archived || parent.project !== place.project || !canSee(actor, parent.project)) {
        throw missingParent(place.project, payload.feature);
      }
    },
    apply: (targets, actor, place, payload: Static<typeof Dependency>) =>
      targets.dependencies.add(actor, place.project, place.feature!, payload),
  },
  deleteDependency: {
    schema: Type.Object({ feature: Type.Optional(Type.String({ minLength: 1 })) }),
    permission: "UPDATE_FEATURE_DEPENDENCY",
    key: (payload: { feature?: string }) => payload.feature ?? "",
    check: async (targets, db, _actor, place, payload: { feature?: string }) => {
      if (payload.feature === undefined) return;
      const parents = await targets.dependencies.parentsOf(db, [place.feature!]);
      if (!parents.some((parent) => parent.feature === payload.feature)) {
        throw notFound(`${place.feature} does not depend on ${payload.feature}`);
      }
    },
    apply: (targets, actor, place, payload: { feature?: string }) =>
      targets.dependencies.remove(actor, place.project, place.feature!, payload.feature),
  },
  updateSegment: {
    schema: SegmentWithId,
    permission: ["UPDATE_SEGMENT", "UPDATE_PROJECT_SEGMENT"],
    segment: true,
    key: (payload: SegmentEdit) => String(payload.id),
    check: async (targets, db, actor, place, payload: SegmentEdit) => {
      await ownSegment(targets, db, actor, place, payload.id);
      if (payload.project !== place.project) {
        throw invalidField(
          "project",
          `A change request of project ${place.project} cannot move the segment out of it.`,
        );
      }
    },
    snapshot: async (targets, db, _place, payload: SegmentEdit) => {
      const now = await segmentState(targets, db, payload.id);
      if (!now) throw missingSegment(payload.id);
      return now;
    },
    conflict: (targets, db, _place, payload: SegmentEdit, snapshot) =>
      segmentConflict(targets, db, payload.id, snapshot),
    apply: (targets, actor, _place, { id, ...segment }: SegmentEdit) =>
      targets.segments.update(actor, id, segment),
  },
  deleteSegment: {
    schema: Type.Object({ id: Type.Integer({ minimum: 1 }), name: Type.Optional(Type.String()) }),
    permission: ["DELETE_SEGMENT", "UPDATE_PROJECT_SEGMENT"],
    segment: true,
    key: (payload: { id: number }) => String(payload.id),
    check: (targets, db, actor, place, payload: { id: number }) =>
      ownSegment(targets, db, actor, place, payload.id),
    snapshot: async (targets, db, _place, payload: { id: number }) => {
      const now = await segmentState(targets, db, payload.id);
      if (!now) throw missingSegment(payload.id);
      return now;
    },
    conflict: (targets, db, _place, payload: { id: number }, snapshot) =>
      segmentConflict(targets, db, payload.id, snapshot),
    apply: (targets, actor, _place, payload: { id: number }) => targets.segments.remove(actor, payload.id),
  },
  addReleasePlan: {
    schema: Type.Object({ templateId: Type.String({ minLength: 1 }) }),
    permission: "CREATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, _place, payload: { templateId: string }) => {
      await targets.releaseTemplates.usable(db, payload.templateId);
    },
    // The template as reviewed is the plan applied: a template edited meanwhile is a conflict.
    refs: async (targets, db, _place, payload: { templateId: string }) => {
      const template = await targets.releaseTemplates.usable(db, payload.templateId).catch(() => null);
      return {
        template:
          template?.milestones.map(({ name, sortOrder, transitionCondition, strategies }) => ({
            name,
            sortOrder,
            transitionCondition,
            strategies: strategies.map(({ id: _id, milestoneId: _milestone, ...strategy }) => strategy),
          })) ?? null,
      };
    },
    apply: (targets, actor, place, payload: { templateId: string }) =>
      targets.releasePlans.add(actor, flagPlace(place), payload.templateId),
  },
  deleteReleasePlan: {
    schema: Type.Object({ planId: Type.String({ minLength: 1 }) }),
    permission: "DELETE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { planId: string }) => {
      await requirePlan(targets, db, place, payload.planId);
    },
    ...planChange,
    apply: (targets, actor, place, payload: { planId: string }) =>
      targets.releasePlans.remove(actor, flagPlace(place), payload.planId),
  },
  startMilestone: {
    schema: Type.Object({ milestoneId: Type.String({ minLength: 1 }) }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { milestoneId: string }) => {
      await requireMilestone(targets, db, place, payload.milestoneId);
    },
    ...planChange,
    apply: (targets, actor, place, payload: { milestoneId: string }) =>
      targets.releasePlans.startMilestone(actor, flagPlace(place), payload.milestoneId),
  },
  changeMilestoneProgression: {
    schema: Type.Object({
      sourceMilestone: Type.String({ minLength: 1 }),
      targetMilestone: Type.String({ minLength: 1 }),
      transitionCondition: TransitionCondition,
    }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: (payload: { sourceMilestone: string }) => payload.sourceMilestone,
    check: async (
      targets,
      db,
      _actor,
      place,
      payload: { sourceMilestone: string; targetMilestone: string },
    ) => {
      await requireMilestone(targets, db, place, payload.sourceMilestone);
      await requireMilestone(targets, db, place, payload.targetMilestone);
    },
    ...planChange,
    apply: (
      targets,
      actor,
      place,
      { sourceMilestone, ...progression }: { sourceMilestone: string } & ProgressionInput,
    ) => targets.releasePlans.changeProgression(actor, flagPlace(place), sourceMilestone, progression),
  },
  deleteMilestoneProgression: {
    schema: Type.Object({ sourceMilestone: Type.String({ minLength: 1 }) }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: (payload: { sourceMilestone: string }) => payload.sourceMilestone,
    check: async (targets, db, _actor, place, payload: { sourceMilestone: string }) => {
      await requireMilestone(targets, db, place, payload.sourceMilestone);
    },
    ...planChange,
    apply: (targets, actor, place, payload: { sourceMilestone: string }) =>
      targets.releasePlans.deleteProgression(actor, flagPlace(place), payload.sourceMilestone),
  },
  resumeMilestoneProgression: {
    schema: Type.Object({ planId: Type.String({ minLength: 1 }) }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { planId: string }) => {
      await requirePlan(targets, db, place, payload.planId);
    },
    ...planChange,
    apply: (targets, actor, place, payload: { planId: string }) =>
      targets.releasePlans.resume(actor, flagPlace(place), payload.planId),
  },
  changeReleasePlanSafeguard: {
    schema: Type.Object({ planId: Type.String({ minLength: 1 }), safeguard: SafeguardInput }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { planId: string }) => {
      await requirePlan(targets, db, place, payload.planId);
    },
    ...planChange,
    apply: (targets, actor, place, payload: { planId: string; safeguard: SafeguardInput }) =>
      targets.safeguards.putOnPlan(actor, flagPlace(place), payload.planId, payload.safeguard),
  },
  deleteReleasePlanSafeguard: {
    schema: Type.Object({
      planId: Type.String({ minLength: 1 }),
      safeguardId: Type.String({ minLength: 1 }),
    }),
    permission: "UPDATE_FEATURE_STRATEGY",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { planId: string; safeguardId: string }) => {
      const plan = await requirePlan(targets, db, place, payload.planId);
      if (!plan.safeguards.some((safeguard) => safeguard.id === payload.safeguardId)) {
        throw notFound(`Could not find safeguard ${payload.safeguardId}`);
      }
    },
    ...planChange,
    apply: (targets, actor, place, payload: { planId: string; safeguardId: string }) =>
      targets.safeguards.remove(actor, flagPlace(place), payload.planId, payload.safeguardId),
  },
  changeFeatureEnvSafeguard: {
    schema: Type.Object({ safeguard: SafeguardInput }),
    permission: "UPDATE_FEATURE_ENVIRONMENT",
    key: () => "",
    snapshot: environmentSafeguardNow,
    conflict: async (targets, db, place, _payload, snapshot) =>
      isDeepStrictEqual(await environmentSafeguardNow(targets, db, place), snapshot)
        ? undefined
        : "The environment's safeguard has been changed since this change was made.",
    apply: (targets, actor, place, payload: { safeguard: SafeguardInput }) =>
      targets.safeguards.putOnEnvironment(actor, flagPlace(place), payload.safeguard),
  },
  deleteFeatureEnvSafeguard: {
    schema: Type.Object({ safeguardId: Type.String({ minLength: 1 }) }),
    permission: "UPDATE_FEATURE_ENVIRONMENT",
    key: () => "",
    check: async (targets, db, _actor, place, payload: { safeguardId: string }) => {
      if ((await environmentSafeguardNow(targets, db, place))?.id !== payload.safeguardId) {
        throw notFound(`Could not find safeguard ${payload.safeguardId}`);
      }
    },
    snapshot: environmentSafeguardNow,
    conflict: async (targets, db, place, payload: { safeguardId: string }) =>
      (await environmentSafeguardNow(targets, db, place))?.id === payload.safeguardId
        ? undefined
        : "The safeguard has been removed since this change was made.",
    apply: (targets, actor, place, payload: { safeguardId: string }) =>
      targets.safeguards.remove(actor, flagPlace(place), null, payload.safeguardId),
  },
};

const missingStrategy = (id: string, place: Place) =>
  notFound(`Flag ${place.feature} has no strategy ${id} in ${place.environment}`);
const missingSegment = (id: number) => notFound(`Could not find segment with id ${id}`);

/** The payload checked against its action's schema, with the schema's defaults filled in. */
export function checkedPayload(action: Action, payload: unknown): unknown {
  const { schema } = ACTION_SPECS[action];
  // As a route's body would be: keys the schema does not know are dropped, not stored.
  const cleaned = Value.Clean(schema, structuredClone(payload ?? {}));
  return conform(schema, cleaned, `The ${action} payload does not match its schema.`);
}
