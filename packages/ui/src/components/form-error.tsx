import { Alert } from "@mantine/core";
import { ApiError } from "../api/client";
import { describeFailure } from "./notify";

/** The first segment of a detail's path, `name` of `name` or `legalValues` of `legalValues.0.value`. */
const fieldOf = (path: string | undefined) => path?.replace(/^\/?(body[./])?/, "").split(/[./]/)[0];

/**
 * The service's refusal of a form, shown in the form (its mutation passes `meta: { quiet: true }`).
 * `inline` names the fields that show their own errors: a refusal wholly about them is not repeated.
 */
export function FormError({ error, inline = [] }: { error: unknown; inline?: readonly string[] }) {
  if (!error) return null;
  if (
    error instanceof ApiError &&
    error.details.length > 0 &&
    error.details.every((detail) => inline.includes(fieldOf(detail.path) ?? ""))
  )
    return null;
  return (
    <Alert color="red" role="alert" title="Not saved">
      {describeFailure(error)}
    </Alert>
  );
}

/** A detail's path as a form names its fields: `legalValues.0.value`. */
const formPath = (path: string) => path.replace(/^\/?(body[./])?/, "").replaceAll("/", ".");

/**
 * What the service said about each field it named, by the field's path in the form, for
 * `form.setErrors`: an input shows what was said of it.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const said: Record<string, string> = {};
  for (const detail of error.details) {
    if (!detail.path) continue;
    const path = formPath(detail.path);
    said[path] = said[path] ? `${said[path]} ${detail.message}` : detail.message;
  }
  return said;
}

/** What the service said about one field, for that input's `error`, when it named the field. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const said = error.details
    .filter((detail) => fieldOf(detail.path) === field)
    .map((detail) => detail.message);
  return said.length > 0 ? said.join(" ") : undefined;
}
