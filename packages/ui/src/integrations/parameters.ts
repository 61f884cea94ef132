import type { Addon, ParameterDefinition, Provider } from "./queries";

/** What the service shows, and accepts back, for a sensitive parameter it keeps: "leave it as it is". */
export const MASK = "*****";

export type ParameterValues = Record<string, string>;

/** The form's starting values: the addon's (sensitive ones as the mask the service sent), or empty. */
export function initialParameters(provider: Provider, addon?: Addon): ParameterValues {
  return Object.fromEntries(
    provider.parameters.map((definition) => {
      const stored = addon?.provider === provider.name ? addon.parameters[definition.name] : undefined;
      return [definition.name, stored === undefined ? "" : String(stored)];
    }),
  );
}

/** Whether a sensitive parameter still holds the mask, so the stored value is kept. */
export const keepsStored = (definition: ParameterDefinition, value: string) =>
  definition.sensitive && value === MASK;

/** The parameters that say where an addon sends, as the service counts them: its URL. */
export const isDestination = (definition: ParameterDefinition) => definition.type === "url";

/**
 * Whether the values send somewhere else than the stored addon did. The service then keeps no
 * stored secret: a mask stands for nothing, and what is needed must be typed again.
 */
export const destinationChanged = (provider: Provider, stored: ParameterValues, values: ParameterValues) =>
  provider.parameters.some(
    (definition) =>
      isDestination(definition) &&
      (values[definition.name] ?? "").trim() !== (stored[definition.name] ?? "").trim(),
  );

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
};

const isHeaderObject = (value: string) => {
  try {
    const parsed: unknown = JSON.parse(value);
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((header) => typeof header === "string")
    );
  } catch {
    return false;
  }
};

/**
 * What is wrong with one parameter before it is sent, as the service would refuse it: a
 * required one left empty, a URL that is not http(s), headers that are not a JSON object of
 * strings. A kept mask is the stored value, which the service checked when it was saved,
 * unless the destination changed (`moved`): then it stands for nothing.
 */
export function parameterProblem(
  definition: ParameterDefinition,
  raw: string,
  moved = false,
): string | undefined {
  const value = raw.trim();
  if (keepsStored(definition, raw))
    return moved && definition.required
      ? `${definition.displayName} must be entered again: the destination changed.`
      : undefined;
  if (value === "") return definition.required ? `${definition.displayName} is required.` : undefined;
  if (definition.type === "url" && !isHttpUrl(value))
    return `${definition.displayName} must be an http:// or https:// URL.`;
  if (definition.name === "customHeaders" && !isHeaderObject(value))
    return `${definition.displayName} must be a JSON object of header names and string values.`;
  return undefined;
}

export function parameterProblems(
  provider: Provider,
  values: ParameterValues,
  moved = false,
): Record<string, string> {
  return Object.fromEntries(
    provider.parameters.flatMap((definition) => {
      const problem = parameterProblem(definition, values[definition.name] ?? "", moved);
      return problem ? [[definition.name, problem]] : [];
    }),
  );
}

/**
 * The parameters as the service takes them: every one the provider defines, trimmed, the
 * mask sent back as it is for a stored sensitive value (unless the destination changed, which
 * drops it), and empty ones left out (which clears them).
 */
export function parametersToSend(
  provider: Provider,
  values: ParameterValues,
  moved = false,
): Record<string, string> {
  return Object.fromEntries(
    provider.parameters.flatMap((definition) => {
      const raw = values[definition.name] ?? "";
      if (keepsStored(definition, raw)) return moved ? [] : [[definition.name, raw]];
      const value = definition.type === "textfield" ? raw : raw.trim();
      return value.trim() === "" ? [] : [[definition.name, value]];
    }),
  );
}
