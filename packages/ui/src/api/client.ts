import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema";

/** Every request and response body of the service, by the name of its path and method. */
export type { components, paths };

/** The body of every refusal (`{ id, name, message, details? }`), as the service's document gives it. */
export type ErrorBody = components["schemas"]["ErrorBody"];

/** A refusal from the service, carrying its error body, so a screen can show the service's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly details: NonNullable<ErrorBody["details"]> = [],
    /** The whole error body, for answers that carry more (a 401's ways to log in). */
    readonly body: ErrorBody | undefined = undefined,
  ) {
    super(message);
  }
}

/** The typed client: paths, parameters and bodies are checked against the service's OpenAPI document. */
export const api = createClient<paths>({ credentials: "same-origin" });

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; a refusal becomes an ApiError with the service's message. */
export async function unwrap<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  // Undefined when what answered was not the service (a proxy's error page, say).
  const body = typeof error === "object" && error !== null ? (error as ErrorBody) : undefined;
  throw new ApiError(
    response.status,
    body?.name ?? "Error",
    body?.message ?? `The service answered ${response.status} ${response.statusText}.`,
    body?.details,
    body,
  );
}
