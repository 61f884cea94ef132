import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { GuardedSwitch } from "../components/guarded-switch";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { queryKeys } from "../query-keys";
import { AddonForm } from "./addon-form";
import { DeliveryLog } from "./delivery-log";
import { type Addon, type Provider, useAddons } from "./queries";
import { TestSendOutcome, useTestSend } from "./test-send";

/** How an addon is called in the page and in its buttons' names: its provider and number. */
export const addonName = (addon: Addon, providers: readonly Provider[]) =>
  `${providers.find((provider) => provider.name === addon.provider)?.displayName ?? addon.provider} #${addon.id}`;

const scopeOf = (list: readonly string[], all: string) =>
  list.length === 0 || list.includes("*") ? all : list.join(", ");

/** Switching an addon on or off: its own fields sent back, sensitive ones as the mask that keeps them. */
function useSwitchAddon() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ addon, enabled }: { addon: Addon; enabled: boolean; name: string }) =>
      unwrap(
        api.PUT("/api/admin/addons/{id}", {
          params: { path: { id: addon.id } },
          body: {
            provider: addon.provider,
            enabled,
            parameters: addon.parameters,
            events: addon.events,
            projects: addon.projects,
            environments: addon.environments,
          },
        }),
      ),
    onSuccess: async (_, { enabled, name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.addons.list() });
      notifyDone(`${name} ${enabled ? "enabled" : "disabled"}.`);
    },
  });
}

/**
 * Integrations (addons): the ones configured, each with its delivery log and a test send, and
 * the providers a new one can use.
 */
export default function IntegrationsPage() {
  const addons = useAddons();
  const can = useCan();
  const editor = useModalTarget<{ provider: Provider; addon: Addon | undefined }>();
  const [log, setLog] = useState<{ addon: Addon; name: string } | null>(null);
  const switchAddon = useSwitchAddon();
  const testSend = useTestSend();
  const providers = addons.data?.providers ?? [];
  const remove = useRemove(
    queryKeys.addons.list(),
    (addon: Addon) => unwrap(api.DELETE("/api/admin/addons/{id}", { params: { path: { id: addon.id } } })),
    (addon) => `${addonName(addon, providers)} deleted.`,
  );
  const target = editor.target === "new" ? undefined : editor.target;

  return (
    <>
      <PageHeader
        title="Integrations"
        description="Send what happens to flags to other services: a webhook of your own, Slack, Microsoft Teams or Datadog."
      />
      {addons.isError && <ErrorPanel error={addons.error} />}
      <Stack gap="xl">
        <Stack gap="sm">
          <Title order={3}>Configured</Title>
          <Table striped aria-label="Configured integrations" verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Integration</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>Projects</Table.Th>
                <Table.Th>Environments</Table.Th>
                <ActionsHeader />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {addons.data?.addons.map((addon) => {
                const name = addonName(addon, providers);
                const provider = providers.find((candidate) => candidate.name === addon.provider);
                return (
                  <Table.Tr key={addon.id}>
                    <Table.Td>
                      <Stack gap={0}>
                        <Text fw={600}>{name}</Text>
                        {addon.description && (
                          <Text size="xs" c="dimmed">
                            {addon.description}
                          </Text>
                        )}
                      </Stack>
                    </Table.Td>
                    <Table.Td>
                      <GuardedSwitch
                        verdict={can("UPDATE_ADDON")}
                        aria-label={`${name} enabled`}
                        checked={
                          switchAddon.isPending && switchAddon.variables.addon.id === addon.id
                            ? switchAddon.variables.enabled
                            : addon.enabled
                        }
                        onChange={(event) =>
                          switchAddon.mutate({ addon, enabled: event.currentTarget.checked, name })
                        }
                      />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" title={addon.events.join(", ")}>
                        {addon.events.length === 1 ? addon.events[0] : `${addon.events.length} events`}
                      </Text>
                    </Table.Td>
                    <Table.Td>{scopeOf(addon.projects, "All projects")}</Table.Td>
                    <Table.Td>{scopeOf(addon.environments, "All environments")}</Table.Td>
                    <Table.Td>
                      <RowActions>
                        <Button
                          variant="subtle"
                          size="compact-sm"
                          aria-label={`Delivery log of ${name}`}
                          onClick={() => setLog({ addon, name })}
                        >
                          Delivery log
                        </Button>
                        <GuardedButton
                          verdict={can("UPDATE_ADDON")}
                          variant="subtle"
                          size="compact-sm"
                          aria-label={`Send test event to ${name}`}
                          loading={testSend.isPending && testSend.variables.id === addon.id}
                          disabled={testSend.isPending}
                          onClick={() => testSend.mutate({ id: addon.id, name })}
                        >
                          Send test event
                        </GuardedButton>
                        <EditButton
                          name={name}
                          verdict={
                            provider
                              ? can("UPDATE_ADDON")
                              : { allowed: false, reason: `The service no longer offers ${addon.provider}.` }
                          }
                          onClick={() => provider && editor.open({ provider, addon })}
                        />
                        <DeleteButton
                          name={name}
                          what="integration"
                          verdict={can("DELETE_ADDON")}
                          message="It stops sending events at once, and its delivery log goes with it."
                          onConfirm={() => remove(addon)}
                        />
                      </RowActions>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
          {addons.data?.addons.length === 0 && <Text c="dimmed">No integrations configured yet.</Text>}
          {testSend.variables && !testSend.isPending && (
            <TestSendOutcome
              name={testSend.variables.name}
              delivery={testSend.data}
              error={testSend.error}
              onClose={testSend.reset}
            />
          )}
          {switchAddon.isError && (
            <Alert color="red" role="alert" title="Not switched">
              {switchAddon.error.message}
            </Alert>
          )}
        </Stack>
        <Stack gap="sm">
          <Title order={3}>Available</Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {providers.map((provider) => (
              <Card
                key={provider.name}
                withBorder
                padding="md"
                component="section"
                aria-label={provider.displayName}
              >
                <Stack gap="xs" h="100%" justify="space-between">
                  <Stack gap={4}>
                    <Group gap="xs">
                      <Text fw={700}>{provider.displayName}</Text>
                      <Badge variant="light" size="sm">
                        {addons.data?.addons.filter((addon) => addon.provider === provider.name).length ?? 0}{" "}
                        configured
                      </Badge>
                    </Group>
                    <Text size="sm" c="dimmed">
                      {provider.description}
                    </Text>
                  </Stack>
                  <GuardedButton
                    verdict={can("CREATE_ADDON")}
                    variant="light"
                    aria-label={`Configure ${provider.displayName}`}
                    onClick={() => editor.open({ provider, addon: undefined })}
                  >
                    Configure
                  </GuardedButton>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        </Stack>
      </Stack>
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        size="xl"
        closeOnClickOutside={false}
        title={
          target?.addon
            ? `Edit ${addonName(target.addon, providers)}`
            : `New ${target?.provider.displayName ?? ""} integration`
        }
      >
        {target && (
          <AddonForm key={editor.key} provider={target.provider} addon={target.addon} onDone={editor.close} />
        )}
      </Modal>
      <Modal
        opened={log !== null}
        onClose={() => setLog(null)}
        size="xl"
        title={log ? `Delivery log of ${log.name}` : ""}
      >
        {log && <DeliveryLog addonId={log.addon.id} name={log.name} />}
      </Modal>
    </>
  );
}
