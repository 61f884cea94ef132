import { type Static, Type } from "typebox";
import { ImpactMetricsField } from "./impact-metrics.js";
import { Nullable } from "./nullable.js";

// What SDKs send about themselves: a registration when they start, and usage counts every
// interval. Both servers accept what the Unleash service's clientApplicationSchema and
// clientMetricsSchema accept; instanceId is optional in both (the service files a missing
// one as "default"), which the reference proxy alone required for metrics.

const Count = Type.Integer({ minimum: 0 });

/** What identifies an SDK's runtime; every field is optional. */
const sdkFields = {
  instanceId: Type.Optional(Type.String()),
  sdkVersion: Type.Optional(Type.String({ description: "unleash-client-<language>:<version>" })),
  platformName: Type.Optional(Type.String()),
  platformVersion: Type.Optional(Type.String()),
  // Our own reports and the Node SDK send null when no Yggdrasil engine is in use.
  yggdrasilVersion: Type.Optional(Nullable(Type.String())),
  specVersion: Type.Optional(Type.String()),
  connectionId: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String({ description: "Ignored: the token decides." })),
};

export const ToggleCountsSchema = Type.Object({
  yes: Type.Optional(Count),
  no: Type.Optional(Count),
  variants: Type.Optional(Nullable(Type.Record(Type.String(), Count))),
});

export const MetricsBucketSchema = Type.Object({
  start: Type.String({ format: "date-time" }),
  stop: Type.String({ format: "date-time" }),
  toggles: Type.Record(Type.String(), ToggleCountsSchema),
});

export const ClientMetricsSchema = Type.Object(
  {
    appName: Type.String({ minLength: 1 }),
    ...sdkFields,
    bucket: Type.Optional(Nullable(MetricsBucketSchema)),
    impactMetrics: Type.Optional(ImpactMetricsField),
  },
  { additionalProperties: true },
);

export const ClientRegistrationSchema = Type.Object(
  {
    appName: Type.String({ minLength: 1 }),
    ...sdkFields,
    strategies: Type.Array(Type.String(), { description: "The strategies the SDK can evaluate." }),
    // An RFC 3339 date, or epoch seconds within what a Date can hold.
    started: Type.Union([Type.String(), Type.Number({ minimum: 0, maximum: 8.64e12 })]),
    interval: Type.Integer({ minimum: 0, description: "Milliseconds between metrics reports." }),
  },
  { additionalProperties: true },
);

export type ToggleCounts = Static<typeof ToggleCountsSchema>;
export type MetricsBucket = Static<typeof MetricsBucketSchema>;
export type ClientMetrics = Static<typeof ClientMetricsSchema>;
export type ClientRegistration = Static<typeof ClientRegistrationSchema>;
