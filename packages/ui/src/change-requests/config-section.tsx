import { Badge, Button, Group, Loader, NumberInput, Switch, Table, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { Verdict } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { GuardedSection } from "../components/guarded-section";
import { notifyDone } from "../components/notify";
import { plural } from "../components/plural";
import { type EnvironmentConfig, useChangeRequestConfig, useChangeRequestsChanged } from "./queries";

/** Project settings: which environments require changes to be reviewed first, and by how many. */
export function ChangeRequestSettings({ projectId, verdict }: { projectId: string; verdict: Verdict }) {
  const config = useChangeRequestConfig(projectId);
  return (
    <GuardedSection legend="Change requests" verdict={verdict}>
      <Text size="sm" c="dimmed" mb="sm">
        In an environment that requires change requests, a change to a flag goes to its author's draft; it is
        made once others have approved and someone applies it. People allowed to skip change requests (admins)
        change flags there directly.
      </Text>
      {config.isPending ? (
        <Loader size="sm" aria-label="Loading the change request settings" />
      ) : config.isError ? (
        <ErrorPanel error={config.error} />
      ) : (
        <Table aria-label="Change requests by environment" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Environment</Table.Th>
              <Table.Th>Require change requests</Table.Th>
              <Table.Th>Required approvals</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {config.data.map((entry) => (
              // Keyed by what is stored: a save starts the row again from the service's answer.
              <EnvironmentRow
                key={`${entry.environment}:${entry.changeRequestEnabled}:${entry.requiredApprovals}`}
                projectId={projectId}
                entry={entry}
                verdict={verdict}
              />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </GuardedSection>
  );
}

function EnvironmentRow({
  projectId,
  entry,
  verdict,
}: {
  projectId: string;
  entry: EnvironmentConfig;
  verdict: Verdict;
}) {
  const changed = useChangeRequestsChanged();
  const [enabled, setEnabled] = useState(entry.changeRequestEnabled);
  const [approvals, setApprovals] = useState<number | string>(entry.requiredApprovals ?? 1);
  const name = entry.environment;
  const valid =
    typeof approvals === "number" && Number.isInteger(approvals) && approvals >= 1 && approvals <= 10;
  const dirty =
    enabled !== entry.changeRequestEnabled || (enabled && approvals !== (entry.requiredApprovals ?? 1));
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}/environments/{environment}/change-requests/config", {
          params: { path: { projectId, environment: name } },
          body: enabled
            ? { changeRequestsEnabled: true, requiredApprovals: Number(approvals) }
            : { changeRequestsEnabled: false },
        }),
      ),
    onSuccess: async () => {
      await changed();
      notifyDone(
        enabled
          ? `Changes in ${name} now need ${plural(Number(approvals), "approval")}.`
          : `Changes in ${name} no longer need change requests.`,
      );
    },
  });
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs">
          <Text size="sm" fw={500}>
            {name}
          </Text>
          <Badge size="sm" variant="light" color={entry.type === "production" ? "red" : "gray"}>
            {entry.type}
          </Badge>
        </Group>
      </Table.Td>
      <Table.Td>
        <Switch
          label={`Require change requests in ${name}`}
          checked={enabled}
          onChange={(event) => setEnabled(event.currentTarget.checked)}
          disabled={!verdict.allowed}
        />
      </Table.Td>
      <Table.Td>
        <Group gap="sm" align="flex-start" wrap="nowrap">
          <NumberInput
            aria-label={`Required approvals in ${name}`}
            min={1}
            max={10}
            allowDecimal={false}
            clampBehavior="strict"
            value={approvals}
            onChange={setApprovals}
            disabled={!verdict.allowed || !enabled}
            error={enabled && !valid ? "From 1 to 10" : undefined}
            w={90}
          />
          <Button
            size="sm"
            variant="light"
            aria-label={`Save change requests in ${name}`}
            disabled={!verdict.allowed || !dirty || (enabled && !valid)}
            loading={save.isPending}
            onClick={() => save.mutate()}
          >
            Save
          </Button>
        </Group>
        <FormError error={save.error} />
      </Table.Td>
    </Table.Tr>
  );
}
