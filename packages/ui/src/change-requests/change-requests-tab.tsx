import { Loader, SegmentedControl, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { ErrorPanel } from "../components/error-panel";
import { ChangeRequestTable, type ListedRequest } from "./change-request-table";
import { type ChangeRequest, useProjectChangeRequests } from "./queries";
import { OPEN_STATES } from "./rules";

const listed = (request: ChangeRequest): ListedRequest => ({
  ...request,
  flags: request.features.map((feature) => feature.name),
  approvals: request.approvals.length,
});

/** The project's change requests, open ones or closed ones, newest first. */
export function ChangeRequestsTab({ projectId }: { projectId: string }) {
  const requests = useProjectChangeRequests(projectId);
  const [which, setWhich] = useState<"open" | "closed">("open");
  if (requests.isPending) return <Loader aria-label="Loading change requests" />;
  if (requests.isError) return <ErrorPanel error={requests.error} />;
  const open = requests.data.filter((request) => OPEN_STATES.includes(request.state));
  const closed = requests.data.filter((request) => !OPEN_STATES.includes(request.state));
  const shown = which === "open" ? open : closed;
  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="Which change requests"
        value={which}
        onChange={(value) => setWhich(value as "open" | "closed")}
        data={[
          { value: "open", label: `Open (${open.length})` },
          { value: "closed", label: `Closed (${closed.length})` },
        ]}
        w="fit-content"
      />
      {shown.length === 0 ? (
        <Text c="dimmed">
          {which === "open" ? "No open change requests." : "No closed change requests yet."}
        </Text>
      ) : (
        <ChangeRequestTable
          requests={shown.map(listed)}
          label={which === "open" ? "Open change requests" : "Closed change requests"}
        />
      )}
    </Stack>
  );
}
