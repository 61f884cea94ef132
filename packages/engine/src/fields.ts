import type { Context } from "./context.js";

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
  if (value instanceof Date) return isoOf(value);
  if (typeof value === "object") return undefined;
  return String(value);
}

// The same Date is read once per date constraint of every flag: keep its last text,
// keyed by its time rather than by identity, since a Date can be changed in place.
let lastTime = Number.NaN;
let lastIso = "";

function isoOf(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) return "Invalid Date";
  if (time !== lastTime) {
    lastIso = date.toISOString();
    lastTime = time;
  }
  return lastIso;
}

/** The random identifier SDKs fall back to when a context has no sticky field. */
export function randomId(range = 10000): string {
  return String(Math.floor(Math.random() * range) + 1);
}
