import { Alert } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { describeFailure } from "../components/notify";
import { queryKeys } from "../query-keys";
import type { Delivery } from "./queries";

/**
 * Sends an addon a sample event now (one attempt, no retry) and refreshes its delivery log,
 * where the service records the test like any delivery.
 */
export function useTestSend() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id }: { id: number; name: string }) =>
      unwrap(api.POST("/api/admin/addons/{id}/test", { params: { path: { id } } })),
    onSettled: (_data, _error, { id }) =>
      client.invalidateQueries({ queryKey: queryKeys.addons.deliveries(id) }),
  });
}

/** The delivered entry's status, as the receiver answered its last attempt. */
const statusOf = (delivery: Delivery) => {
  const code = delivery.attempts.findLast((attempt) => attempt.statusCode !== null)?.statusCode;
  return code === undefined || code === null ? "" : ` (HTTP ${code})`;
};

/** How the last test send went: delivered with the receiver's status, or why it was not. */
export function TestSendOutcome({
  name,
  delivery,
  error,
  onClose,
}: {
  name: string;
  delivery: Delivery | undefined;
  error: unknown;
  onClose: () => void;
}) {
  if (error) {
    return (
      <Alert color="red" role="alert" title="Test event not sent" withCloseButton onClose={onClose}>
        {name}: {describeFailure(error)}
      </Alert>
    );
  }
  if (!delivery) return null;
  if (delivery.state === "success") {
    return (
      <Alert color="green" role="status" title="Test event delivered" withCloseButton onClose={onClose}>
        Test event delivered to {name}
        {statusOf(delivery)}.
      </Alert>
    );
  }
  const partly = delivery.state === "successWithErrors";
  return (
    <Alert
      color={partly ? "yellow" : "red"}
      role="alert"
      title={partly ? "Test event partly delivered" : "Test event failed"}
      withCloseButton
      onClose={onClose}
    >
      Test event to {name} {partly ? "partly delivered" : "failed"}
      {statusOf(delivery)}: {delivery.stateDetails}
    </Alert>
  );
}
