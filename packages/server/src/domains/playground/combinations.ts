import type { FlatContext } from "./schemas.js";

/** Each context field with the values it takes, in the order they were sent. */
export interface ContextChoices {
  fields: [string, unknown[]][];
  /** Top-level fields left out because their value is not text (`properties` aside). */
  invalid: string[];
}

/**
 * The advanced playground's reading of a context, as the reference's: a top-level field
 * that is not text is left out (and named); text is a comma-separated list of values;
 * `properties` are lifted to the top level, where SDKs read a field first anyway.
 */
export function contextChoices(context: Record<string, unknown>): ContextChoices {
  const fields: [string, unknown[]][] = [];
  const invalid: string[] = [];
  const choose = (name: string, value: unknown) =>
    fields.push([name, typeof value === "string" ? value.split(",") : [value]]);
  const { appName, ...rest } = context;
  for (const [name, value] of Object.entries(rest)) {
    if (name === "properties" && typeof value === "object" && value !== null) {
      for (const [property, inner] of Object.entries(value)) choose(property, inner);
    } else if (typeof value === "string") choose(name, value);
    else invalid.push(name);
  }
  choose("appName", appName);
  // A property named like a top-level field replaces it, the later value winning.
  const byName = new Map(fields);
  return { fields: [...byName], invalid };
}

export const combinationCount = (choices: ContextChoices): number =>
  choices.fields.reduce((count, [, values]) => count * values.length, 1);

/** Every context the choices make: the cartesian product of the fields' values. */
export function combinations(choices: ContextChoices): FlatContext[] {
  let contexts: [string, unknown][][] = [[]];
  for (const [name, values] of choices.fields) {
    contexts = contexts.flatMap((context) =>
      values.map((value): [string, unknown][] => [...context, [name, value]]),
    );
  }
  return contexts.map((entries) => Object.fromEntries(entries));
}
