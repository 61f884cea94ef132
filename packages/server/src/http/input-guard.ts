import { ApiError } from "@signalbox/protocol";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from "fastify";

// PostgreSQL's `integer`: what every id, sort order, limit and count column holds. A schema
// that needs more (a bigint event id, say) states its own bounds.
const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

type JsonSchema = { [key: string]: unknown };

/** Gives every integer in a schema PostgreSQL's integer range, unless it has bounds of its own. */
function boundIntegers(schema: unknown, seen = new Set<unknown>()): void {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return;
  seen.add(schema);
  const node = schema as JsonSchema;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("integer")) {
    node.minimum ??= INT32.minimum;
    node.maximum ??= INT32.maximum;
  }
  for (const value of Object.values(node)) boundIntegers(value, seen);
}

/** Route option hook: every integer a route accepts fits the column it is stored in. */
export function boundRouteIntegers(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  for (const part of ["body", "querystring", "params"]) boundIntegers(schema[part]);
}

// A NUL cannot be stored in PostgreSQL text or jsonb, and a lone surrogate is not Unicode:
// both would fail in the database, after the request had been accepted.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function findUnstorable(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  // for…in rather than Object.entries: most requests carry empty params and query objects,
  // and an SDK poll should not allocate to learn that.
  for (const key in value) {
    const at = path ? `${path}.${key}` : key;
    if (UNSTORABLE.test(key)) return at;
    const found = findUnstorable((value as Record<string, unknown>)[key], at);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses text that no column can hold, wherever it is sent (body, query, path), with the
 * field named, before any schema or handler sees it. Synchronous, as it has nothing to wait
 * for: a thrown refusal ends the request as a rejected promise would, without making one.
 */
export function refuseUnstorableText(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  let field: string | undefined;
  try {
    field =
      findUnstorable(request.params, "") ??
      findUnstorable(request.query, "") ??
      findUnstorable(request.body, "");
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ApiError("ValidationError", "The request body is nested too deeply.");
  }
  if (field !== undefined) {
    const message = `${field} contains a NUL character or an unpaired surrogate, which cannot be stored`;
    throw new ApiError("ValidationError", message, [{ message, path: field }]);
  }
  done();
}
