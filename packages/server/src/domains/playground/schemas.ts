import { PayloadSchema, VariantSchema } from "@signalbox/protocol";
import { type Static, Type } from "typebox";

// The reference's playground API: the same requests, and answers with its fields. The
// reference's own clients ignore fields they do not know, so an answer may say more
// (`contextValue` on a constraint); none of its fields is left out.

const Projects = Type.Union([Type.Literal("*"), Type.Array(Type.String())], {
  description: "The projects whose flags are evaluated; `*` for every project the caller may see.",
});

/** The context as SDKs model it; unknown fields are custom context fields, as `properties`. */
const sdkContext = (description: string) =>
  Type.Object(
    {
      appName: Type.String({ minLength: 1 }),
      currentTime: Type.Optional(
        Type.String({ format: "date-time", description: "Defaults to the time of the request." }),
      ),
      environment: Type.Optional(Type.String()),
      properties: Type.Optional(Type.Record(Type.String(), Type.String())),
      remoteAddress: Type.Optional(Type.String()),
      sessionId: Type.Optional(Type.String()),
      userId: Type.Optional(Type.String()),
    },
    { additionalProperties: true, description },
  );

export const PlaygroundRequest = Type.Object({
  projects: Type.Optional(Projects),
  environment: Type.String(),
  context: sdkContext("The context every flag is evaluated for."),
});
export type PlaygroundRequest = Static<typeof PlaygroundRequest>;

export const AdvancedPlaygroundRequest = Type.Object({
  projects: Type.Optional(Projects),
  environments: Type.Array(Type.String({ minLength: 1, pattern: "^[a-zA-Z0-9~_.-]+$" }), { minItems: 1 }),
  context: sdkContext(
    "Each value may be a comma-separated list: every combination of the values is evaluated, as a context of its own.",
  ),
});
export type AdvancedPlaygroundRequest = Static<typeof AdvancedPlaygroundRequest>;

const PlaygroundConstraint = Type.Object(
  {
    contextName: Type.String(),
    operator: Type.String(),
    values: Type.Array(Type.String()),
    value: Type.Optional(Type.String()),
    inverted: Type.Boolean(),
    caseInsensitive: Type.Boolean(),
    result: Type.Boolean(),
    contextValue: Type.Optional(
      Type.String({
        description:
          "The context's value that was compared (Signalbox only); left out when the context has none.",
      }),
    ),
  },
  { additionalProperties: false },
);

const PlaygroundSegment = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    result: Type.Boolean(),
    constraints: Type.Array(PlaygroundConstraint),
  },
  { additionalProperties: false },
);

const Unknown = Type.Literal("unknown");

const StrategyVariant = Type.Object(
  { name: Type.String(), enabled: Type.Boolean(), payload: Type.Optional(PayloadSchema) },
  { additionalProperties: false },
);

const StrategyResult = Type.Union([
  Type.Object(
    {
      evaluationStatus: Type.Union([Type.Literal("incomplete"), Type.Literal("unevaluated")], {
        description:
          "`incomplete`: a strategy the service cannot evaluate (custom, or applicationHostname); `unevaluated`: a disabled strategy.",
      }),
      enabled: Type.Union([Type.Literal(false), Unknown]),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      evaluationStatus: Type.Literal("complete"),
      enabled: Type.Boolean(),
      variant: Type.Optional(StrategyVariant),
      variants: Type.Optional(Type.Array(VariantSchema)),
    },
    { additionalProperties: false },
  ),
]);

const PlaygroundStrategy = Type.Object(
  {
    name: Type.String(),
    title: Type.Optional(Type.String()),
    id: Type.String(),
    result: StrategyResult,
    disabled: Type.Boolean(),
    segments: Type.Array(PlaygroundSegment),
    constraints: Type.Array(PlaygroundConstraint),
    parameters: Type.Record(Type.String(), Type.String()),
    links: Type.Object({ edit: Type.String() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const PlaygroundVariant = Type.Object(
  {
    name: Type.String(),
    enabled: Type.Boolean(),
    payload: Type.Optional(PayloadSchema),
    feature_enabled: Type.Boolean(),
    featureEnabled: Type.Boolean(),
  },
  { additionalProperties: false },
);

const featureFields = {
  name: Type.String(),
  projectId: Type.String(),
  isEnabled: Type.Boolean({ description: "What an SDK given this context would answer." }),
  isEnabledInCurrentEnvironment: Type.Boolean({ description: "The flag's own switch in the environment." }),
  hasUnsatisfiedDependency: Type.Boolean(),
  strategies: Type.Object(
    {
      result: Type.Union([Type.Boolean(), Unknown], {
        description:
          "True when a strategy lets the context in; `unknown` when none does but one could not be evaluated.",
      }),
      data: Type.Array(PlaygroundStrategy),
    },
    { additionalProperties: false },
  ),
  variant: PlaygroundVariant,
  variants: Type.Array(VariantSchema),
};

export const PlaygroundFeature = Type.Object(featureFields, { additionalProperties: false });
export type PlaygroundFeature = Static<typeof PlaygroundFeature>;

export const PlaygroundResponse = Type.Object({
  input: PlaygroundRequest,
  features: Type.Array(PlaygroundFeature),
});

/** One context of the combinations, flat: `properties` are merged into the top level. */
const FlatContext = Type.Record(Type.String(), Type.Unknown());
export type FlatContext = Static<typeof FlatContext>;

export const AdvancedPlaygroundItem = Type.Object(
  { ...featureFields, environment: Type.String(), context: FlatContext },
  { additionalProperties: false },
);
export type AdvancedPlaygroundItem = Static<typeof AdvancedPlaygroundItem>;

export const AdvancedPlaygroundResponse = Type.Object({
  input: AdvancedPlaygroundRequest,
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      projectId: Type.String(),
      environments: Type.Record(Type.String(), Type.Array(AdvancedPlaygroundItem), {
        description: "For each environment, one evaluation per context of the combinations.",
      }),
    }),
  ),
  warnings: Type.Optional(
    Type.Object({
      invalidContextProperties: Type.Optional(
        Type.Array(Type.String(), {
          description: "Top-level context fields left out because their value is not text.",
        }),
      ),
    }),
  ),
});
