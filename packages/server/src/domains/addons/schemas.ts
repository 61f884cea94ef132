import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";
import { StoredEvent } from "../events/schemas.js";

export const AddonId = Type.Object({ id: Type.Integer({ minimum: 1 }) });

// Checked by the service, not here: a union would let Ajv's coercion turn `true` into
// "true" (or "1" into 1) through whichever branch comes first.
const ParameterValue = Type.Unsafe<string | number | boolean>({ description: "A string, number or boolean" });
const Parameters = Type.Record(Type.String(), ParameterValue);

/** An addon as the API shows it: sensitive parameters masked. */
export const Addon = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  provider: Type.String(),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  parameters: Parameters,
  events: Type.Array(Type.String()),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
});
export type AddonView = Static<typeof Addon>;

const NullableList = Type.Optional(Nullable(Type.Array(Type.String())));

/**
 * Endpoint 3's body, and creation's: the four fields the spec marks required must be there;
 * the others, when absent, are left as they are, and null empties any list or the
 * description (which then reads "").
 */
export const AddonInput = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  enabled: Type.Boolean(),
  parameters: Nullable(Parameters),
  events: Nullable(Type.Array(Type.String())),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  projects: NullableList,
  environments: NullableList,
});
export type AddonInput = Static<typeof AddonInput>;

export const ParameterDefinition = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  type: Type.Union([Type.Literal("url"), Type.Literal("text"), Type.Literal("textfield")]),
  description: Type.Optional(Type.String()),
  placeholder: Type.Optional(Type.String()),
  required: Type.Boolean(),
  sensitive: Type.Boolean(),
});
export type ParameterDefinition = Static<typeof ParameterDefinition>;

const TagTypeDefinition = Type.Object({
  name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
});

export const ProviderDefinition = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  documentationUrl: Type.String(),
  parameters: Type.Array(ParameterDefinition),
  events: Type.Array(Type.String()),
  tagTypes: Type.Array(TagTypeDefinition),
});
export type ProviderDefinition = Static<typeof ProviderDefinition>;

export const AddonList = Type.Object({
  addons: Type.Array(Addon),
  providers: Type.Array(ProviderDefinition),
});

const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Type.String({ format: "date-time" }),
  /** What the request was for, when an event becomes several (a Slack channel). */
  target: Type.Optional(Type.String()),
  statusCode: Nullable(Type.Integer()),
  response: Nullable(Type.String()),
  error: Nullable(Type.String()),
});
export type Attempt = Static<typeof Attempt>;

export const DELIVERY_STATES = ["success", "failed", "successWithErrors"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One event delivered (or not) by one addon, in the reference's shape, with every attempt. */
export const IntegrationEvent = Type.Object({
  id: Type.String({ pattern: "^[0-9]+$" }),
  integrationId: Type.Integer(),
  createdAt: Type.String({ format: "date-time" }),
  state: Type.Enum(DELIVERY_STATES),
  stateDetails: Type.String(),
  event: StoredEvent,
  details: Type.Record(Type.String(), Type.Unknown()),
  attempts: Type.Array(Attempt),
});
export type IntegrationEventView = Static<typeof IntegrationEvent>;

export const IntegrationEventQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const IntegrationEventList = Type.Object({ integrationEvents: Type.Array(IntegrationEvent) });
