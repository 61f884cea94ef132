import type { Context } from "./context.js";
import { perEvaluation } from "./per-evaluation.js";

// A context field is read from the top level, then from `properties`, as the SDKs do;
// empty values count as missing. Values are compared as strings.
export function contextValue(context: Context, field: string): string | undefined {
  let value = context[field];
  if (value === undefined || value === null || value === "") {
    const properties = context.properties;
    if (properties === undefined || properties === null || typeof properties !== "object") return undefined;
    value = properties[field];
    if (value === undefined || value === null || value === "") return undefined;
  }
  if (typeof value === "string") return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (typeof value === "object") return undefined;
  return String(value);
}

export type FieldReader = (context: Context) => string | undefined;

const readers = new Map<string, FieldReader>();
// Field names come from documents: past this many, new ones are read without being kept.
const MAX_READERS = 10_000;

/** `contextValue` of one field, read once per evaluation call: many flags compare the same fields. */
export function fieldReader(field: string): FieldReader {
  let reader = readers.get(field);
  if (!reader) {
    reader = perEvaluation((context) => contextValue(context, field));
    if (readers.size < MAX_READERS) readers.set(field, reader);
  }
  return reader;
}

export const userId = fieldReader("userId");
export const sessionId = fieldReader("sessionId");
export const remoteAddress = fieldReader("remoteAddress");

/** The random identifier SDKs fall back to when a context has no sticky field. */
export function randomId(range = 10000): string {
  return String(Math.floor(Math.random() * range) + 1);
}
