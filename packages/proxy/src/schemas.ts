import { Type } from "typebox";

// The request and response shapes of every route: Fastify validates requests with them and
// the OpenAPI document is generated from them.

const contextFields = {
  appName: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String({ description: "Ignored when the proxy pins an environment." })),
  userId: Type.Optional(Type.String()),
  sessionId: Type.Optional(
    Type.String({
      description:
        "When missing, rules on sessionId see none; `default` stickiness uses one random value per response.",
    }),
  ),
  remoteAddress: Type.Optional(Type.String({ description: "Defaults to the client's address." })),
  currentTime: Type.Optional(Type.String({ description: "A date; dropped when it does not parse." })),
  properties: Type.Optional(Type.Record(Type.String(), Type.String())),
};

export const ContextQuery = Type.Object(contextFields, {
  additionalProperties: Type.String(),
  description: "Other fields are moved into properties.",
});

export const ContextBody = Type.Object(contextFields, {
  additionalProperties: true,
  description: "Other scalar fields are moved into properties.",
});

export const ToggleRequest = Type.Object(
  {
    context: Type.Optional(ContextBody),
    toggles: Type.Optional(
      Type.Array(Type.String(), {
        description: "Evaluate exactly these flags, on or off; unknown ones are off.",
      }),
    ),
  },
  { additionalProperties: true },
);

const Payload = Type.Object({ type: Type.String(), value: Type.String() });

export const ToggleList = Type.Object({
  toggles: Type.Array(
    Type.Object({
      name: Type.String(),
      enabled: Type.Boolean(),
      impressionData: Type.Boolean(),
      variant: Type.Object({
        name: Type.String(),
        enabled: Type.Boolean({ description: "False only for the fallback variant `disabled`." }),
        feature_enabled: Type.Boolean(),
        payload: Type.Optional(Payload),
      }),
    }),
  ),
});

const Count = Type.Integer({ minimum: 0 });

export const ClientMetrics = Type.Object(
  {
    appName: Type.String(),
    instanceId: Type.String(),
    environment: Type.Optional(Type.String()),
    bucket: Type.Object({
      start: Type.String({ format: "date-time" }),
      stop: Type.String({ format: "date-time" }),
      toggles: Type.Record(
        Type.String(),
        Type.Object({ yes: Count, no: Count, variants: Type.Optional(Type.Record(Type.String(), Count)) }),
      ),
    }),
  },
  { additionalProperties: true },
);

export const ClientRegistration = Type.Object(
  {
    appName: Type.String(),
    instanceId: Type.Optional(Type.String()),
    interval: Type.Number(),
    started: Type.Union([Type.String(), Type.Number()]),
    strategies: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);

export const ClientFeatures = Type.Object({
  version: Type.Integer(),
  features: Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: true })),
  segments: Type.Optional(Type.Array(Type.Object({ id: Type.Integer() }, { additionalProperties: true }))),
});

/** A plain-text response, for the OpenAPI document. */
export function text(description: string, mediaType = "text/plain") {
  return { description, content: { [mediaType]: { schema: Type.String() } } };
}

export const ErrorBody = Type.Object({
  error: Type.String(),
  validation: Type.Optional(Type.Array(Type.Unknown())),
});
