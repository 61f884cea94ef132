import { Alert } from "@mantine/core";
import { ApiError } from "../api/client";
import { describeFailure } from "./notify";

/** A screen that could not load says what the service answered, not a blank page. */
export function ErrorPanel({ error }: { error: unknown }) {
  const title =
    error instanceof ApiError && error.status === 404
      ? "Not found"
      : error instanceof ApiError && error.status === 403
        ? "Not allowed"
        : "Could not load this";
  return (
    <Alert color="red" title={title} role="alert" m="md">
      {describeFailure(error)}
    </Alert>
  );
}
