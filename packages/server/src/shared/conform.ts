import { ApiError } from "@signalbox/protocol";
import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";

/**
 * A value that did not come through a route's schema (a patched document, a change
 * request's payload) made to meet one: defaults filled in (into the value itself), and
 * refused with a ValidationError naming each problem.
 */
export function conform<S extends TSchema>(schema: S, value: unknown, message: string): Static<S> {
  const result = Value.Default(schema, value);
  if (!Value.Check(schema, result)) {
    const details = [...Value.Errors(schema, result)].map((issue) => {
      const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
      return { message: `${path || "value"} ${issue.message}`, ...(path ? { path } : {}) };
    });
    throw new ApiError("ValidationError", message, details);
  }
  return result as Static<S>;
}
