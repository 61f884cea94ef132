import { ClientMetricsSchema, ClientRegistrationSchema } from "@signalbox/protocol";
import { Type } from "typebox";

// What the proxy answers besides the protocol's shapes (@signalbox/protocol): plain-text
// answers and the reference proxy's error body; and the protocol's registration and usage
// payloads as the proxy takes them from clients, bounded.

/** A plain-text response, documented with its media type. */
export function text(description: string, mediaType = "text/plain") {
  return { description, content: { [mediaType]: { schema: Type.String() } } };
}

export const ErrorBody = Type.Object({
  error: Type.String(),
  validation: Type.Optional(Type.Array(Type.Unknown())),
});

/** Longest text, and most entries in a list or map, that a client's registration or usage report may hold. */
export const REPORT_LIMITS = { length: 255, entries: 1000 };

type Schema = Record<string, unknown>;
const mapValues = (record: unknown, map: (schema: Schema) => Schema) =>
  Object.fromEntries(
    Object.entries(record as Record<string, Schema>).map(([key, value]) => [key, map(value)]),
  );

/**
 * `schema` with a maximum on every string, list and map, and closed to properties it does
 * not name: those are removed (Fastify's Ajv has `removeAdditional`) rather than refused,
 * so SDKs that send more than the protocol keep working, and nothing unknown is held or
 * forwarded. The protocol's schemas stay the one description of the payloads.
 */
function bounded<T>(schema: T): T {
  const node = schema as Schema;
  const types = [node.type].flat();
  const result: Schema = { ...node };
  if (types.includes("string")) result.maxLength ??= REPORT_LIMITS.length;
  if (types.includes("array")) {
    result.maxItems ??= REPORT_LIMITS.entries;
    result.items = bounded(node.items);
  }
  if (types.includes("object")) {
    result.additionalProperties = false;
    if (node.properties) result.properties = mapValues(node.properties, bounded);
    if (node.patternProperties) {
      result.patternProperties = mapValues(node.patternProperties, bounded);
      result.propertyNames = { maxLength: REPORT_LIMITS.length };
      result.maxProperties ??= REPORT_LIMITS.entries;
    }
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    if (Array.isArray(node[keyword])) result[keyword] = node[keyword].map(bounded);
  }
  return result as T;
}

/**
 * What the proxy takes from an SDK's registration, forwarded as it came. sdkFlavor and its
 * version are not in the protocol (yet): integrations built on an SDK, such as OpenFeature
 * providers, send them, and the reference service bounds them so.
 */
export const ReportedRegistration = bounded(
  Type.Object({
    ...ClientRegistrationSchema.properties,
    sdkFlavor: Type.Optional(Type.String({ maxLength: 256 })),
    sdkFlavorVersion: Type.Optional(Type.String({ maxLength: 32 })),
  }),
);

/** What the proxy takes from an SDK's usage report; only the bucket's counts travel on. */
export const ReportedMetrics = bounded(ClientMetricsSchema);
