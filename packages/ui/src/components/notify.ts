import { notifications } from "@mantine/notifications";
import { ApiError } from "../api/client";

/** The service's own explanation of a refusal, with the fields it names. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.details.map((detail) => detail.message).filter((text) => text !== error.message);
    return [error.message, ...fields].join(" ");
  }
  return error instanceof Error ? error.message : String(error);
}

export function notifyFailure(error: unknown): void {
  notifications.show({ color: "red", title: "Not done", message: describeFailure(error) });
}

export function notifyDone(message: string): void {
  notifications.show({ color: "green", message });
}
