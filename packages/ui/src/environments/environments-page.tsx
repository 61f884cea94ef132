import { ActionIcon, Badge, Group, Modal, Select, Stack, Table, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import { IconArrowDown, IconArrowUp } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { FormActions, NameField } from "../components/form-fields";
import { GuardedButton } from "../components/guarded-button";
import { GuardedSwitch } from "../components/guarded-switch";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useFormSave } from "../components/use-form-save";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { useEnvironments } from "../projects/queries";
import { queryKeys } from "../query-keys";

type Environment = NonNullable<ReturnType<typeof useEnvironments>["data"]>["environments"][number];

// The reference's kinds; the service takes any, and one it holds is offered back as it is.
const TYPES = ["development", "test", "preproduction", "production"];

export default function EnvironmentsPage() {
  const environments = useEnvironments();
  const client = useQueryClient();
  const can = useCan();
  const admin = can("ADMIN");
  const editor = useModalTarget<Environment>();
  const list = environments.data?.environments ?? [];

  const changed = () => client.invalidateQueries({ queryKey: queryKeys.environments.list() });
  const toggle = useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) =>
      unwrap(
        enabled
          ? api.POST("/api/admin/environments/{name}/on", { params: { path: { name } } })
          : api.POST("/api/admin/environments/{name}/off", { params: { path: { name } } }),
      ),
    onSettled: changed,
  });
  const reorder = useMutation({
    mutationFn: (names: string[]) =>
      unwrap(
        api.PUT("/api/admin/environments/sort-order", {
          body: Object.fromEntries(names.map((name, index) => [name, index + 1])),
        }),
      ),
    onSettled: changed,
  });
  const move = (from: number, to: number) => {
    const names = list.map((environment) => environment.name);
    const [moved] = names.splice(from, 1);
    if (moved === undefined) return;
    names.splice(to, 0, moved);
    reorder.mutate(names);
  };
  const remove = useRemove(
    queryKeys.environments.list(),
    (name: string) => unwrap(api.DELETE("/api/admin/environments/{name}", { params: { path: { name } } })),
    (name) => `Environment ${name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Environments"
        description="Where flags are evaluated, each with its own switches and strategies. Listed in the order screens show them."
        actions={
          <GuardedButton verdict={admin} onClick={() => editor.open("new")}>
            New environment
          </GuardedButton>
        }
      />
      {environments.isError && <ErrorPanel error={environments.error} />}
      <Table striped aria-label="Environments" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Order</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Projects</Table.Th>
            <Table.Th>Enabled</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((environment, index) => (
            <Table.Tr key={environment.name}>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <ActionIcon
                    variant="subtle"
                    aria-label={`Move ${environment.name} up`}
                    disabled={!admin.allowed || index === 0 || reorder.isPending}
                    aria-description={admin.reason}
                    onClick={() => move(index, index - 1)}
                  >
                    <IconArrowUp size={16} />
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    aria-label={`Move ${environment.name} down`}
                    disabled={!admin.allowed || index === list.length - 1 || reorder.isPending}
                    aria-description={admin.reason}
                    onClick={() => move(index, index + 1)}
                  >
                    <IconArrowDown size={16} />
                  </ActionIcon>
                </Group>
              </Table.Td>
              <Table.Td>
                <Group gap="xs">
                  <Text fw={600}>{environment.name}</Text>
                  {environment.protected && (
                    <Badge variant="light" color="gray" size="sm">
                      Protected
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={environment.type === "production" ? "red" : "blue"}>
                  {environment.type}
                </Badge>
              </Table.Td>
              <Table.Td>{environment.projectCount}</Table.Td>
              <Table.Td>
                <GuardedSwitch
                  verdict={admin}
                  aria-label={`${environment.name} enabled`}
                  // Said in words too: a disabled switch looks off whatever its state.
                  label={environment.enabled ? "On" : "Off"}
                  checked={environment.enabled}
                  disabled={toggle.isPending}
                  onChange={(event) =>
                    toggle.mutate({ name: environment.name, enabled: event.currentTarget.checked })
                  }
                />
              </Table.Td>
              <Table.Td>
                <RowActions>
                  <EditButton
                    name={environment.name}
                    verdict={admin}
                    onClick={() => editor.open(environment)}
                  />
                  <DeleteButton
                    name={environment.name}
                    what="environment"
                    verdict={admin}
                    message="Every flag's switch, strategies and variants in this environment are deleted with it, and SDK tokens for it stop working."
                    onConfirm={() => remove(environment.name)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        title={editor.target === "new" ? "New environment" : `Edit environment ${editor.target.name}`}
      >
        <EnvironmentForm
          key={editor.key}
          environment={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}

function EnvironmentForm({
  environment,
  onDone,
}: {
  environment: Environment | undefined;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: { name: environment?.name ?? "", type: environment?.type ?? "development" },
  });
  const { type } = form.values;
  const { mutation: save, submit } = useFormSave(form, {
    save: ({ name, type }) =>
      environment
        ? unwrap(
            api.PUT("/api/admin/environments/update/{name}", {
              params: { path: { name: environment.name } },
              body: { type },
            }),
          )
        : unwrap(api.POST("/api/admin/environments", { body: { name, type } })),
    onSaved: async (_, { name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.environments.list() });
      notifyDone(environment ? `Environment ${name} saved.` : `Environment ${name} created.`);
      onDone();
    },
  });
  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField
          description={
            environment ? "An environment keeps its name." : "URL-safe: SDK tokens and URLs name it."
          }
          disabled={environment !== undefined}
          {...form.getInputProps("name")}
        />
        <Select
          label="Type"
          description="What kind of environment it is."
          data={TYPES.includes(type) ? TYPES : [...TYPES, type]}
          allowDeselect={false}
          {...form.getInputProps("type")}
        />
        <FormError error={save.error} inline={["name", "type"]} />
        <FormActions
          submitLabel={environment ? "Save environment" : "Create environment"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
