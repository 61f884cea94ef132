import { randomBytes } from "node:crypto";
import { invalidField } from "./errors.js";

/**
 * The context a flag is evaluated for. Well-known fields sit at the top level; anything
 * else lives in `properties` (a top-level unknown field is also read, as the SDKs do).
 */
export interface EvaluationContext {
  appName?: string;
  environment?: string;
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  currentTime?: string | Date;
  properties?: Record<string, string | number | boolean | null | undefined>;
  [field: string]: unknown;
}

/** Where the rules of a frontend API differ between the service and the proxy (README). */
export interface FrontendContextRules {
  /** Stands in for a missing `appName`. */
  appName: string;
  /** When set, the environment of every context, whatever the caller sent. */
  environment?: string;
  /**
   * When given, `currentTime` is this clock's and a `currentTime` sent is an ordinary
   * property, so a caller cannot move date constraints; otherwise a sent `currentTime`
   * that parses is used (as an ISO 8601 string) and one that does not is dropped.
   */
  clock?: () => Date;
  /** Whether an IPv4 caller seen as `::ffff:a.b.c.d` (a server listening on `::`) is `a.b.c.d`. */
  plainIpv4: boolean;
  /**
   * Whether a value that is no string, number or boolean (an object, a list) is refused
   * with a ValidationError naming it; otherwise it is left out.
   */
  refuseNonScalars: boolean;
}

type Properties = NonNullable<EvaluationContext["properties"]>;

const TOP_LEVEL = new Set(["appName", "environment", "userId", "sessionId", "remoteAddress"]);
const MAPPED_IPV4 = "::ffff:";
const NESTED_OPEN = "properties[";

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// Keys are the caller's: `__proto__` is a name like any other, not the object's prototype.
function put(properties: Properties, name: string, value: string): void {
  if (name === "__proto__")
    Object.defineProperty(properties, name, { value, enumerable: true, writable: true });
  else properties[name] = value;
}

function plainAddress(address: string): string {
  return address.startsWith(MAPPED_IPV4) && address.includes(".")
    ? address.slice(MAPPED_IPV4.length)
    : address;
}

/** A field's value as text; a value no constraint can compare is refused or left out. */
function text(path: string, value: unknown, rules: FrontendContextRules): string | undefined {
  if (isScalar(value)) return String(value);
  if (rules.refuseNonScalars) {
    throw invalidField(`context.${path}`, `context.${path} must be a string, number or boolean`);
  }
  return undefined;
}

/** The `properties` sent, as text: the object itself when it holds only text, as query strings give it. */
function sentProperties(given: Record<string, unknown>, rules: FrontendContextRules): Properties {
  let onlyText = true;
  for (const name in given) {
    if (typeof given[name] !== "string") {
      onlyText = false;
      break;
    }
  }
  if (onlyText) return given as Properties;
  const properties: Properties = {};
  for (const name in given) {
    const value = given[name];
    if (value === undefined || value === null) continue;
    const property = text(`properties.${name}`, value, rules);
    if (property !== undefined) put(properties, name, property);
  }
  return properties;
}

/** Fields filed as properties, with the properties sent winning; usually only one of them is there. */
function merged(...parts: Array<Properties | undefined>): Properties {
  const properties: Properties = {};
  for (const part of parts) for (const name in part) put(properties, name, part[name] as string);
  return properties;
}

/**
 * Builds the evaluation context of a frontend API request from its query parameters or
 * its body's `context`. Shared rules: well-known fields stay on top, every other field
 * (and `properties[name]`, as flat query keys arrive) is a property, and `properties` sent
 * win over same-named fields; empty values (undefined, null, "") are missing; the
 * environment is the one sent, else "default"; `remoteAddress` defaults to the caller's
 * address. A missing `sessionId` stays missing: how anonymous callers stay sticky is the
 * host's choice.
 */
export function frontendContext(
  fields: Record<string, unknown> | undefined,
  callerAddress: () => string,
  rules: FrontendContextRules,
): EvaluationContext {
  const context: EvaluationContext = {};
  const clock = rules.clock;
  let rest: Properties | undefined;
  let flat: Properties | undefined;
  let sent: Properties | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || value === null || value === "") continue;
    if (key === "properties" && isRecord(value)) {
      sent = sentProperties(value, rules);
      continue;
    }
    const field = text(key, value, rules);
    if (field === undefined) continue;
    if (TOP_LEVEL.has(key)) {
      context[key] = field;
    } else if (key === "currentTime" && clock === undefined) {
      const time = new Date(field);
      // An ISO string rather than a Date: the engine reads fields as strings.
      if (!Number.isNaN(time.getTime())) context.currentTime = time.toISOString();
    } else if (key.startsWith(NESTED_OPEN) && key.endsWith("]") && key.length > NESTED_OPEN.length + 1) {
      flat ??= {};
      put(flat, key.slice(NESTED_OPEN.length, -1), field);
    } else {
      rest ??= {};
      put(rest, key, field);
    }
  }
  if (rest === undefined && flat === undefined) {
    if (sent !== undefined) context.properties = sent;
  } else {
    context.properties = merged(rest, flat, sent);
  }
  context.appName ??= rules.appName;
  context.environment = rules.environment ?? context.environment ?? "default";
  if (clock) context.currentTime = clock();
  if (context.remoteAddress === undefined) {
    const address = callerAddress();
    context.remoteAddress = rules.plainIpv4 ? plainAddress(address) : address;
  }
  return context;
}

/**
 * The flag service's frontend API rules (`/api/frontend`, the reference's): its in-process
 * SDK's defaults for what a request leaves out, and the server's clock for dates, so that a
 * browser cannot move date constraints (a `currentTime` sent is an ordinary property).
 */
const FRONTEND_API_RULES: FrontendContextRules = {
  appName: "frontend-api",
  clock: () => new Date(),
  plainIpv4: false,
  refuseNonScalars: true,
};

/**
 * The context of a request to the flag service's frontend API, wherever it is served (the
 * service, or the proxy in its place): the token chooses which flags are evaluated, the
 * `environment` field is the request's, and a caller without a session gets one made up
 * for the whole response, which keeps its flags and variants consistent.
 */
export function frontendApiContext(
  fields: Record<string, unknown>,
  callerAddress: string,
): EvaluationContext {
  const context = frontendContext(fields, () => callerAddress, FRONTEND_API_RULES);
  context.sessionId ??= randomBytes(18).toString("hex");
  return context;
}
