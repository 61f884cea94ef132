import { type Static, Type } from "typebox";
import { PayloadSchema } from "./sdk-document.js";

// What browser and mobile SDKs send to a frontend API (the service's /api/frontend, the
// proxy's /proxy) and the flags they get back.

const contextFields = {
  appName: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
  sessionId: Type.Optional(Type.String()),
  remoteAddress: Type.Optional(Type.String({ description: "Defaults to the caller's address." })),
  currentTime: Type.Optional(Type.String({ description: "A date; see the rules of each server." })),
  properties: Type.Optional(Type.Record(Type.String(), Type.String())),
};

/** The context in a query string: `properties[name]=value` nests, other unknown fields are properties. */
export const FrontendQuerySchema = Type.Object(contextFields, {
  additionalProperties: Type.String(),
  description: "Other fields are moved into properties.",
});

/** The `context` of a POST body. */
export const FrontendContextSchema = Type.Object(contextFields, {
  additionalProperties: true,
  description: "Other scalar fields are moved into properties.",
});

/** The body of the service's POST /api/frontend. */
export const FrontendRequestSchema = Type.Object(
  { context: Type.Optional(FrontendContextSchema) },
  { additionalProperties: true },
);

/** The body of the proxy's POST /proxy, which can also answer for exactly the flags named. */
export const ProxyRequestSchema = Type.Object(
  {
    ...FrontendRequestSchema.properties,
    toggles: Type.Optional(
      Type.Array(Type.String(), {
        description: "Evaluate exactly these flags, on or off; unknown ones are off.",
      }),
    ),
  },
  { additionalProperties: true },
);

export const FrontendVariantSchema = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean({ description: "False only for the fallback variant `disabled`." }),
  feature_enabled: Type.Boolean({ description: "Whether the flag itself is on." }),
  featureEnabled: Type.Optional(Type.Boolean({ description: "Older spelling of feature_enabled." })),
  payload: Type.Optional(PayloadSchema),
});

export const FrontendToggleSchema = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  impressionData: Type.Boolean(),
  variant: FrontendVariantSchema,
});

export const FrontendTogglesSchema = Type.Object({ toggles: Type.Array(FrontendToggleSchema) });

export type FrontendQuery = Static<typeof FrontendQuerySchema>;
export type FrontendContext = Static<typeof FrontendContextSchema>;
export type FrontendRequest = Static<typeof FrontendRequestSchema>;
export type ProxyRequest = Static<typeof ProxyRequestSchema>;
export type FrontendVariant = Static<typeof FrontendVariantSchema>;
export type FrontendToggle = Static<typeof FrontendToggleSchema>;
export type FrontendToggles = Static<typeof FrontendTogglesSchema>;
