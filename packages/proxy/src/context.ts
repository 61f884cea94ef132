import type { Context } from "@signalbox/engine";
import type { ContextEnricher } from "./config.js";

const KNOWN_FIELDS = new Set([
  "appName",
  "environment",
  "userId",
  "sessionId",
  "remoteAddress",
  "currentTime",
]);

export interface ContextSettings {
  /** Stands in for a missing `appName`, as the reference's SDK static context does. */
  appName: string;
  /** When set, the environment of every context, whatever the caller sent. */
  environment: string | undefined;
}

type Properties = NonNullable<Context["properties"]>;

const MAPPED_IPV4 = "::ffff:";

// A server listening on "::" sees IPv4 clients as ::ffff:a.b.c.d; rules are written for a.b.c.d.
function plainAddress(address: string): string {
  return address.startsWith(MAPPED_IPV4) && address.includes(".")
    ? address.slice(MAPPED_IPV4.length)
    : address;
}

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/**
 * Turns what a caller sent (query parameters or the body's `context`) into an evaluation
 * context, with the reference proxy's rules: unknown top-level fields move into
 * `properties` (a same-named property wins), empty fields are dropped, an invalid
 * `currentTime` is dropped (a valid one becomes an ISO 8601 string), `remoteAddress` defaults
 * to the client's address (IPv4 without its IPv6 mapping), and a configured environment
 * cannot be overridden. A missing `sessionId` stays missing: rules on sessions must not see
 * one the caller never sent (the evaluation supplies anonymous callers' stickiness instead).
 */
export function createContext(
  input: Record<string, unknown> | undefined,
  clientAddress: () => string,
  settings: ContextSettings,
): Context {
  const context: Context = { appName: settings.appName, environment: "default" };
  let properties: Properties | undefined;
  for (const key in input) {
    const value = input[key];
    if (!value || key === "properties") continue;
    if (!KNOWN_FIELDS.has(key)) {
      if (!isScalar(value)) continue;
      properties ??= {};
      properties[key] = String(value);
    } else if (key === "currentTime") {
      // An ISO string rather than a Date: the engine reads fields as strings and would format a Date per rule.
      const time = new Date(value as string);
      if (!Number.isNaN(time.getTime())) context.currentTime = time.toISOString();
    } else {
      context[key] = String(value);
    }
  }
  const given = input?.properties;
  if (given && typeof given === "object" && !Array.isArray(given)) {
    properties = properties ? { ...properties, ...(given as Properties) } : (given as Properties);
  }
  if (properties) context.properties = properties;
  if (settings.environment !== undefined) context.environment = settings.environment;
  context.remoteAddress ??= plainAddress(clientAddress());
  return context;
}

/** Runs the enrichers in order, each on the context the previous one returned. */
export async function enrichContext(
  context: Context,
  enrichers: readonly ContextEnricher[],
): Promise<Context> {
  let enriched = context;
  for (const enrich of enrichers) enriched = await enrich(enriched);
  return enriched;
}
