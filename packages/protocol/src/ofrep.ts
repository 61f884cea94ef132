import { type Static, Type } from "typebox";
import type { EvaluationContext } from "./context.js";
import type { FrontendToggle } from "./frontend.js";
import type { FeatureDefinition, StrategyDefinition, VariantDefinition } from "./sdk-document.js";

// The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0, open-feature/protocol
// service/openapi.yaml), as the service (frontend tokens) and the proxy (client keys) speak
// it, and how an Unleash flag's answer becomes an OpenFeature value: one mapping for both.

/** The OpenFeature resolution reasons Signalbox gives; the README's table says when. */
export const OFREP_REASONS = ["STATIC", "TARGETING_MATCH", "SPLIT", "DISABLED", "DEFAULT"] as const;
export type OfrepReason = (typeof OFREP_REASONS)[number];

const metadata = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String(), Type.Number()]), {
  description: "The flag's project and type, and whether it is on for the context.",
});

export const OfrepRequestSchema = Type.Object(
  {
    context: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "`targetingKey` is the userId unless a `userId` is given; the standard fields (userId, sessionId, remoteAddress, appName, environment) stay, every other key is a property.",
      }),
    ),
  },
  { additionalProperties: true },
);

export const OfrepSuccessSchema = Type.Object({
  key: Type.String(),
  value: Type.Optional(
    Type.Unknown({
      description:
        "A boolean for a flag without variants; otherwise the chosen variant's payload, typed (string, number or JSON). Left out when the code default applies.",
    }),
  ),
  reason: Type.String({ description: OFREP_REASONS.join(", ") }),
  variant: Type.Optional(Type.String()),
  metadata: Type.Optional(metadata),
});

export const OfrepFailureSchema = Type.Object({
  key: Type.Optional(Type.String()),
  errorCode: Type.String({
    description: "PARSE_ERROR, TARGETING_KEY_MISSING, INVALID_CONTEXT, GENERAL or FLAG_NOT_FOUND",
  }),
  errorDetails: Type.Optional(Type.String()),
  metadata: Type.Optional(metadata),
});

/** Where to hear of changes (ADR-0008): a server-sent event stream, at `origin` (the provider's own by default) + `requestUri`. */
export const OfrepEventStreamSchema = Type.Object({
  type: Type.String({ description: "sse" }),
  url: Type.Optional(Type.String()),
  endpoint: Type.Optional(Type.Object({ origin: Type.Optional(Type.String()), requestUri: Type.String() })),
  inactivityDelaySec: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const OfrepBulkSchema = Type.Object({
  flags: Type.Array(Type.Union([OfrepSuccessSchema, OfrepFailureSchema])),
  metadata: Type.Optional(metadata),
  eventStreams: Type.Optional(Type.Array(OfrepEventStreamSchema)),
});

export type OfrepRequest = Static<typeof OfrepRequestSchema>;
export type OfrepSuccess = Static<typeof OfrepSuccessSchema>;
export type OfrepFailure = Static<typeof OfrepFailureSchema>;
export type OfrepEvaluation = OfrepSuccess | OfrepFailure;

/** One flag's answer and what decided it, as the engine's `decide` gives them. */
export interface Decision {
  /** The answer as `evaluate` gives it: for the same outcome, the same object. */
  result: FrontendToggle;
  /** The flag's own switch in the environment. */
  flagEnabled: boolean;
  /** A parent kept the flag off. */
  hasUnsatisfiedDependency: boolean;
  /** The strategy that let the context in; none for a flag without strategies, or when off. */
  deciding?: StrategyDefinition;
  /** Where the variant came from; none when there are no variants to choose from. */
  variantSource?: "strategy" | "flag";
}

/** An OFREP context as the frontend API's fields: the targeting key is the user, unless a userId is given. */
export function ofrepFields(context: Record<string, unknown>): Record<string, unknown> {
  const { targetingKey, ...fields } = context;
  if (fields.userId === undefined && targetingKey !== undefined) fields.userId = targetingKey;
  return fields;
}

const ROLLOUT_PARAMETER: Record<string, string> = {
  flexibleRollout: "rollout",
  gradualRolloutUserId: "percentage",
  gradualRolloutSessionId: "percentage",
  gradualRolloutRandom: "percentage",
};

const isRollout = (strategy: StrategyDefinition) => {
  const parameter = ROLLOUT_PARAMETER[strategy.name];
  return parameter !== undefined && Number(strategy.parameters?.[parameter] ?? 100) < 100;
};

const isStatic = (strategy: StrategyDefinition) =>
  strategy.name === "default" || (ROLLOUT_PARAMETER[strategy.name] !== undefined && !isRollout(strategy));

const hasTargeting = (strategy: StrategyDefinition) =>
  (strategy.constraints?.length ?? 0) > 0 || (strategy.segments?.length ?? 0) > 0;

const fieldOf = (context: EvaluationContext, name: string) => context[name] ?? context.properties?.[name];

/** Whether the variants chose by weight for this context, rather than by an override or as the only one. */
function split(
  variants: readonly VariantDefinition[] | null | undefined,
  chosen: string,
  context: EvaluationContext,
) {
  const weighted = (variants ?? []).filter((variant) => variant.weight > 0);
  const overridden = (variants ?? []).some(
    (variant) =>
      variant.name === chosen &&
      (variant.overrides ?? []).some((override) =>
        override.values.includes(String(fieldOf(context, override.contextName))),
      ),
  );
  return overridden ? "override" : weighted.length > 1 ? "split" : "single";
}

/** Why the flag answers what it does, in OpenFeature's words (the README's table). */
export function ofrepReason(
  flag: Decision,
  definition: FeatureDefinition | undefined,
  context: EvaluationContext,
): OfrepReason {
  if (!flag.flagEnabled) return "DISABLED";
  const { result } = flag;
  // Off for this context: no rule let it in, or a parent kept it off.
  if (!result.enabled || flag.hasUnsatisfiedDependency) return "DEFAULT";
  const { deciding } = flag;
  const variants =
    flag.variantSource === "strategy"
      ? deciding?.variants
      : flag.variantSource === "flag"
        ? definition?.variants
        : undefined;
  const chosen = result.variant.enabled ? split(variants, result.variant.name, context) : "single";
  if (chosen === "split") return "SPLIT";
  if (chosen === "override") return "TARGETING_MATCH";
  if (!deciding) return "STATIC";
  if (hasTargeting(deciding)) return "TARGETING_MATCH";
  if (isRollout(deciding)) return "SPLIT";
  return isStatic(deciding) ? "STATIC" : "TARGETING_MATCH";
}

/** What the mapping reads of a definition, worked out once per definition. */
interface Facts {
  variants: boolean;
  needsTargetingKey: boolean;
  metadata: Record<string, string>;
}

const facts = new WeakMap<FeatureDefinition, Facts>();

function factsOf(definition: FeatureDefinition): Facts {
  let known = facts.get(definition);
  if (!known) {
    const metadata: Record<string, string> = {};
    if (definition.project !== undefined) metadata.project = definition.project;
    if (definition.type !== undefined) metadata.type = definition.type;
    known = { variants: variantsIn(definition), needsTargetingKey: readsUser(definition), metadata };
    facts.set(definition, known);
  }
  return known;
}

/** Whether the flag has variants in this environment: its value is then its variant's payload, not a boolean. */
export const hasVariants = (definition: FeatureDefinition | undefined): boolean =>
  definition !== undefined && factsOf(definition).variants;

/**
 * Whether the flag reads the user to decide: a user list, a rollout or variants sticky to the
 * user, or a rule on `userId`. Such a flag cannot be evaluated without a targeting key.
 */
export const needsTargetingKey = (definition: FeatureDefinition | undefined): boolean =>
  definition !== undefined && factsOf(definition).needsTargetingKey;

function variantsIn(definition: FeatureDefinition): boolean {
  return (
    (definition.variants?.length ?? 0) > 0 ||
    (definition.strategies ?? []).some((strategy) => (strategy.variants?.length ?? 0) > 0)
  );
}

const USER_STICKY = new Set(["default", "userId"]);

function readsUser(definition: FeatureDefinition): boolean {
  const stickyVariants = (variants: readonly VariantDefinition[] | null | undefined) =>
    (variants?.length ?? 0) > 1 && USER_STICKY.has(variants?.[0]?.stickiness ?? "default");
  return (
    stickyVariants(definition.variants) ||
    (definition.strategies ?? []).some(
      (strategy) =>
        strategy.name === "userWithId" ||
        strategy.name === "gradualRolloutUserId" ||
        (strategy.name === "flexibleRollout" &&
          isRollout(strategy) &&
          USER_STICKY.has(strategy.parameters?.stickiness ?? "default")) ||
        (strategy.constraints ?? []).some((constraint) => constraint.contextName === "userId") ||
        stickyVariants(strategy.variants),
    )
  );
}

/** A payload as the OpenFeature type it says it is; undefined when it does not read as that type. */
function typedPayload(payload: { type: string; value: string }): { value: unknown } | undefined {
  switch (payload.type) {
    case "number": {
      const value = Number(payload.value);
      return payload.value.trim() === "" || Number.isNaN(value) ? undefined : { value };
    }
    case "json":
      try {
        return { value: JSON.parse(payload.value) };
      } catch {
        return undefined;
      }
    default:
      return { value: payload.value };
  }
}

/**
 * One flag's OFREP answer. A flag without variants is a boolean: on or off. A flag with
 * variants answers its variant's payload as the type the payload says (string and csv as a
 * string, number as a number, json parsed); with no payload, or off, the code default
 * applies (no value), as the Unleash OpenFeature providers answer. A payload that does not
 * read as its type is a PARSE_ERROR.
 */
export function ofrepEvaluation(
  flag: Decision,
  definition: FeatureDefinition | undefined,
  context: EvaluationContext,
): OfrepEvaluation {
  return ofrepAnswer(flag.result, definition, ofrepReason(flag, definition, context));
}

/**
 * The answer for a result and its reason: it depends on nothing else, so a host may keep
 * it (serialised) per result object and reason.
 */
export function ofrepAnswer(
  result: FrontendToggle,
  definition: FeatureDefinition | undefined,
  reason: OfrepReason,
): OfrepEvaluation {
  const metadata: Record<string, string | boolean> = {
    ...(definition ? factsOf(definition).metadata : {}),
    enabled: result.enabled,
  };
  const key = result.name;
  if (!hasVariants(definition)) return { key, value: result.enabled, reason, metadata };
  if (!result.variant.enabled) return { key, reason, metadata };
  const variant = result.variant.name;
  const { payload } = result.variant;
  if (!payload) return { key, reason, variant, metadata };
  const typed = typedPayload(payload);
  if (!typed) {
    return {
      key,
      errorCode: "PARSE_ERROR",
      errorDetails: `The payload of variant ${variant} is not a valid ${payload.type}.`,
      metadata,
    };
  }
  return { key, value: typed.value, reason, variant, metadata };
}

/** The answer for a flag the caller cannot see or that does not exist. */
export const flagNotFound = (key: string): OfrepFailure => ({
  key,
  errorCode: "FLAG_NOT_FOUND",
  errorDetails: `Flag '${key}' was not found.`,
});

export const targetingKeyMissing = (key: string): OfrepFailure => ({
  key,
  errorCode: "TARGETING_KEY_MISSING",
  errorDetails: `Flag '${key}' decides by user: the context needs a targetingKey (or userId).`,
});
