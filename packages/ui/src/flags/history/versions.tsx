import {
  Alert,
  Badge,
  Button,
  Group,
  List,
  Loader,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { IconHistory } from "@tabler/icons-react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { ErrorPanel } from "../../components/error-panel";
import { describeFailure, notifyDone } from "../../components/notify";
import { RelativeTime } from "../../components/relative-time";
import { JsonDiff } from "../../events/json-diff";
import { queryKeys } from "../../query-keys";
import { type Flag, useFlagChanged } from "../queries";

const VERSIONS = "/api/admin/projects/{projectId}/features/{featureName}/versions" as const;
const RESTORE = "/api/admin/projects/{projectId}/features/{featureName}/versions/{eventId}/restore" as const;

const listVersions = (projectId: string, featureName: string) =>
  unwrap(api.GET(VERSIONS, { params: { path: { projectId, featureName }, query: { limit: 100 } } }));
type Version = Awaited<ReturnType<typeof listVersions>>["versions"][number];

/** "feature-strategy-update" → "strategy update": what a person reads in a list of changes. */
const changeName = (type: string) => type.replace(/^feature-/, "").replaceAll("-", " ");

/**
 * The flag's versions, newest first: one per change of what it serves. Any of them can be
 * restored, for the whole flag or one environment, after seeing what that would change.
 */
export function FlagVersions({ flag }: { flag: Flag }) {
  const versions = useQuery({
    queryKey: queryKeys.flags.versions(flag.project, flag.name),
    queryFn: () => listVersions(flag.project, flag.name),
  });
  const [restoring, setRestoring] = useState<Version>();
  if (versions.isPending) return <Loader aria-label="Loading the flag's versions" />;
  if (versions.isError) return <ErrorPanel error={versions.error} />;
  const [current, ...earlier] = versions.data.versions;
  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        Versions
      </Title>
      {current === undefined ? (
        <Text c="dimmed">No change to what the flag serves has been recorded yet.</Text>
      ) : (
        <Table aria-label="Versions" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Change</Table.Th>
              <Table.Th>Environment</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[current, ...earlier].map((version) => (
              <Table.Tr key={version.eventId}>
                <Table.Td>
                  <RelativeTime value={version.createdAt} />
                </Table.Td>
                <Table.Td>
                  {changeName(version.type)}
                  {version.events.length > 1 && (
                    <Text span c="dimmed" size="xs">
                      {" "}
                      and {version.events.length - 1} more
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{version.environment ?? "all"}</Table.Td>
                <Table.Td>{version.createdBy}</Table.Td>
                <Table.Td>
                  {version === current ? (
                    <Badge variant="light">current</Badge>
                  ) : (
                    <Button
                      size="xs"
                      variant="default"
                      leftSection={<IconHistory size={14} />}
                      aria-label={`Restore version ${version.eventId}`}
                      onClick={() => setRestoring(version)}
                    >
                      Restore…
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {restoring && <RestoreModal flag={flag} version={restoring} onClose={() => setRestoring(undefined)} />}
    </Stack>
  );
}

/** What restoring a version would change, shown first; then one change that makes it so. */
function RestoreModal({ flag, version, onClose }: { flag: Flag; version: Version; onClose: () => void }) {
  const place = { projectId: flag.project, featureName: flag.name };
  // "" is the whole flag: every environment and its dependencies.
  const [scope, setScope] = useState("");
  const preview = useQuery({
    queryKey: queryKeys.flags.restorePreview(flag.project, flag.name, version.eventId, scope),
    queryFn: () =>
      unwrap(
        api.GET(RESTORE, {
          params: {
            path: { ...place, eventId: version.eventId },
            query: scope ? { environment: scope } : {},
          },
        }),
      ),
  });
  const gate = useChangeGate(flag.project);
  const flagChanged = useFlagChanged(place);
  const plan = preview.data;
  const touched = plan?.environments.filter((environment) => environment.changes.length > 0) ?? [];
  const reviewed =
    touched.some((environment) => gate.requiresRequest(environment.environment)) ||
    (plan?.dependencies?.changes.length ? gate.flagWideEnvironment() !== undefined : false);
  const restore = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST(RESTORE, {
          params: { path: { ...place, eventId: version.eventId } },
          body: { ...(scope && { environment: scope }), ...(reviewed && { changeRequest: true }) },
        }),
      ),
    onSuccess: async (result) => {
      await flagChanged();
      notifyDone(
        result.changeRequests.length > 0
          ? `Added to your drafts for ${result.changeRequests.map((request) => request.environment).join(", ")}: send them for review.`
          : "Restored: the flag serves that version again.",
      );
      onClose();
    },
  });

  return (
    <Modal opened onClose={onClose} title="Restore this version" size="xl">
      <Stack gap="sm">
        <Text size="sm">
          The flag as it was after the {changeName(version.type)} by {version.createdBy},{" "}
          <RelativeTime value={version.createdAt} />.
        </Text>
        <Select
          label="What to restore"
          data={[
            { value: "", label: "The whole flag" },
            ...flag.environments.map((environment) => ({
              value: environment.name,
              label: `Only ${environment.name}`,
            })),
          ]}
          value={scope}
          onChange={(value) => setScope(value ?? "")}
          allowDeselect={false}
        />
        {preview.isPending && <Loader aria-label="Working out what would change" />}
        {preview.isError && <ErrorPanel error={preview.error} />}
        {plan && plan.blockers.length > 0 && (
          <Alert color="red" title="This version cannot be restored">
            <List size="sm">
              {plan.blockers.map((blocker) => (
                <List.Item key={`${blocker.path}:${blocker.message}`}>{blocker.message}</List.Item>
              ))}
            </List>
          </Alert>
        )}
        {plan && plan.changes.length === 0 && plan.blockers.length === 0 && (
          <Text c="dimmed">The flag serves this version now: there is nothing to change.</Text>
        )}
        {touched.map((environment) => (
          <Stack key={environment.environment} gap={4}>
            <Group gap="xs">
              <Title order={4} size="h5">
                {environment.environment}
              </Title>
              {gate.requiresRequest(environment.environment) && (
                <Badge variant="light" color="orange">
                  change request
                </Badge>
              )}
            </Group>
            <List size="sm" aria-label={`Changes in ${environment.environment}`}>
              {environment.changes.map((change) => (
                <List.Item key={`${change.action}:${JSON.stringify(change.payload)}`}>
                  {change.description}
                </List.Item>
              ))}
            </List>
            <JsonDiff
              label={`${environment.environment}: now and restored`}
              before={environment.current}
              after={environment.restored}
            />
          </Stack>
        ))}
        {plan?.dependencies && plan.dependencies.changes.length > 0 && (
          <Stack gap={4}>
            <Title order={4} size="h5">
              Dependencies
            </Title>
            <List size="sm" aria-label="Changes to dependencies">
              {plan.dependencies.changes.map((change) => (
                <List.Item key={`${change.action}:${JSON.stringify(change.payload)}`}>
                  {change.description}
                </List.Item>
              ))}
            </List>
          </Stack>
        )}
        {restore.isError && (
          <Alert color="red" title="Not restored">
            {describeFailure(restore.error)}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            loading={restore.isPending}
            disabled={!plan || plan.blockers.length > 0 || plan.changes.length === 0}
            onClick={() => restore.mutate()}
          >
            {reviewed ? "Add the restore to change requests" : "Restore this version"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
