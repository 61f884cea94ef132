/**
 * Paths at which two JSON values differ; object key order is not a difference. A key one
 * side lacks is named with that side's name from `sides`.
 */
export function jsonDiff(
  a: unknown,
  b: unknown,
  sides: readonly [string, string],
  path = "",
  out: string[] = [],
  limit = 20,
): string[] {
  if (out.length >= limit) return out;
  if (a === b) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path || "."} (length ${a.length} vs ${b.length})`);
    for (let i = 0; i < Math.min(a.length, b.length); i++)
      jsonDiff(a[i], b[i], sides, `${path}[${i}]`, out, limit);
    return out;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(key in a)) out.push(`${path}.${key} (only ${sides[1]})`);
      else if (!(key in b)) out.push(`${path}.${key} (only ${sides[0]})`);
      else jsonDiff(a[key], b[key], sides, `${path}.${key}`, out, limit);
    }
    return out;
  }
  out.push(path || ".");
  return out;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a path written by jsonDiff (`.a.b[2].c`), ignoring its note in parentheses. */
export function at(value: unknown, path: string): unknown {
  const clean = path.replace(/ \(.*\)$/, "");
  let current = value;
  for (const part of clean.match(/[^.[\]]+/g) ?? []) {
    if (current === undefined || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
