import { Badge, Group, Modal, Stack, Table, Text } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { type StrategyDefinition, useStrategyDefinitions } from "../flags/queries";
import { queryKeys } from "../query-keys";
import { StrategyTypeForm } from "./strategy-type-form";

// SDKs fall back to it, so the service keeps it available; saying so beats a refusal after the click.
const KEEP_DEFAULT = {
  allowed: false,
  reason: "SDKs fall back to the default strategy: it cannot be deprecated.",
};

export default function StrategyTypesPage() {
  const strategies = useStrategyDefinitions();
  const client = useQueryClient();
  const can = useCan();
  const editor = useModalTarget<StrategyDefinition>();

  const changed = () => client.invalidateQueries({ queryKey: queryKeys.strategyTypes.list() });
  const deprecation = useMutation({
    mutationFn: ({ name, deprecated }: { name: string; deprecated: boolean }) =>
      unwrap(
        deprecated
          ? api.POST("/api/admin/strategies/{name}/deprecate", { params: { path: { name } } })
          : api.POST("/api/admin/strategies/{name}/reactivate", { params: { path: { name } } }),
      ),
    onSuccess: (_, { name, deprecated }) =>
      notifyDone(deprecated ? `Strategy ${name} deprecated.` : `Strategy ${name} reactivated.`),
    onSettled: changed,
  });
  const remove = useRemove(
    queryKeys.strategyTypes.list(),
    (name: string) => unwrap(api.DELETE("/api/admin/strategies/{name}", { params: { path: { name } } })),
    (name) => `Strategy ${name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Strategy types"
        description="The activation strategies flags can use: the built-in ones, and custom ones your SDKs implement."
        actions={
          <GuardedButton verdict={can("CREATE_STRATEGY")} onClick={() => editor.open("new")}>
            New strategy type
          </GuardedButton>
        }
      />
      {strategies.isError && <ErrorPanel error={strategies.error} />}
      <Table striped aria-label="Strategy types" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Parameters</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {strategies.data?.strategies.map((strategy) => (
            <Table.Tr key={strategy.name} c={strategy.deprecated ? "dimmed" : undefined}>
              <Table.Td>
                <Stack gap={2}>
                  <Group gap="xs">
                    <Text fw={600}>{strategy.displayName || strategy.name}</Text>
                    {!strategy.editable && (
                      <Badge variant="light" color="gray" size="sm">
                        Built-in
                      </Badge>
                    )}
                    {strategy.deprecated && (
                      <Badge variant="light" color="orange" size="sm">
                        Deprecated
                      </Badge>
                    )}
                  </Group>
                  {strategy.displayName && (
                    <Text size="xs" c="dimmed">
                      {strategy.name}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{strategy.description}</Table.Td>
              <Table.Td>
                {strategy.parameters.length === 0
                  ? "None"
                  : strategy.parameters
                      .map(
                        (parameter) =>
                          `${parameter.name} (${parameter.type}${parameter.required ? ", required" : ""})`,
                      )
                      .join(", ")}
              </Table.Td>
              <Table.Td>
                <RowActions>
                  {strategy.editable && (
                    <EditButton
                      name={strategy.name}
                      verdict={can("UPDATE_STRATEGY")}
                      onClick={() => editor.open(strategy)}
                    />
                  )}
                  <GuardedButton
                    verdict={strategy.name === "default" ? KEEP_DEFAULT : can("UPDATE_STRATEGY")}
                    variant="subtle"
                    size="compact-sm"
                    color={strategy.deprecated ? "blue" : "orange"}
                    aria-label={`${strategy.deprecated ? "Reactivate" : "Deprecate"} ${strategy.name}`}
                    loading={deprecation.isPending && deprecation.variables.name === strategy.name}
                    onClick={() =>
                      deprecation.mutate({ name: strategy.name, deprecated: !strategy.deprecated })
                    }
                  >
                    {strategy.deprecated ? "Reactivate" : "Deprecate"}
                  </GuardedButton>
                  {strategy.editable && (
                    <DeleteButton
                      name={strategy.name}
                      what="strategy type"
                      verdict={can("DELETE_STRATEGY")}
                      message="Flags can no longer use it. The service refuses while a flag's strategy does."
                      onConfirm={() => remove(strategy.name)}
                    />
                  )}
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        size="xl"
        title={editor.target === "new" ? "New strategy type" : `Edit strategy type ${editor.target.name}`}
      >
        <StrategyTypeForm
          key={editor.key}
          strategy={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}
