import { Avatar, Group, Modal, MultiSelect, Select, Stack, Table, Text, Tooltip } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { pickHint } from "../components/pick-hint";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useFormSave } from "../components/use-form-save";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { queryKeys } from "../query-keys";
import { personName } from "./names";
import { type GroupView, type UserList, useGroups, useUsers } from "./queries";

export default function GroupsPage() {
  const groups = useGroups();
  const users = useUsers();
  const admin = useCan()("ADMIN");
  const editor = useModalTarget<GroupView>();
  const roleName = (id: number | null) =>
    id === null ? "None" : (users.data?.rootRoles.find((role) => role.id === id)?.name ?? `Role ${id}`);

  const remove = useRemove(
    queryKeys.groups.list(),
    (group: GroupView) =>
      unwrap(api.DELETE("/api/admin/groups/{groupId}", { params: { path: { groupId: group.id } } })),
    (group) => `Group ${group.name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Groups"
        description="People who share access: a group's root role and its project roles hold for every member."
        actions={
          <GuardedButton verdict={admin} onClick={() => editor.open("new")}>
            New group
          </GuardedButton>
        }
      />
      {groups.isError && <ErrorPanel error={groups.error} />}
      <Table striped aria-label="Groups" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Root role</Table.Th>
            <Table.Th>Members</Table.Th>
            <Table.Th>Projects</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.data?.groups.map((group) => (
            <Table.Tr key={group.id}>
              <Table.Td>
                <Stack gap={0}>
                  <Text fw={600}>{group.name}</Text>
                  {group.description && (
                    <Text size="xs" c="dimmed">
                      {group.description}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{roleName(group.rootRole)}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Avatar.Group>
                    {group.users.slice(0, 5).map(({ user }) => (
                      <Tooltip key={user.id} label={personName(user)} withinPortal>
                        <Avatar radius="xl" size="sm" color="blue" alt={personName(user)}>
                          {personName(user).slice(0, 2).toUpperCase()}
                        </Avatar>
                      </Tooltip>
                    ))}
                  </Avatar.Group>
                  <Text size="sm">{group.userCount}</Text>
                </Group>
              </Table.Td>
              <Table.Td>{group.projects.join(", ") || "None"}</Table.Td>
              <Table.Td>
                <RowActions>
                  <EditButton name={group.name} verdict={admin} onClick={() => editor.open(group)} />
                  <DeleteButton
                    name={group.name}
                    what="group"
                    verdict={admin}
                    message="Its members lose what the group gave them: its root role and its roles in projects."
                    onConfirm={() => remove(group)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {groups.data?.groups.length === 0 && <Text c="dimmed">No groups yet.</Text>}
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        size="lg"
        closeOnClickOutside={false}
        title={editor.target === "new" ? "New group" : `Edit group ${editor.target.name}`}
      >
        <GroupForm
          key={editor.key}
          group={editor.target === "new" ? undefined : editor.target}
          users={users.data}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}

function GroupForm({
  group,
  users,
  onDone,
}: {
  group: GroupView | undefined;
  users: UserList | undefined;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      name: group?.name ?? "",
      description: group?.description ?? "",
      rootRole: group?.rootRole == null ? null : String(group.rootRole),
      members: group?.users.map(({ user }) => String(user.id)) ?? [],
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, description, rootRole, members }) => {
      const body = {
        name,
        description: description || null,
        rootRole: rootRole === null ? null : Number(rootRole),
        users: members.map((id) => ({ user: { id: Number(id) } })),
      };
      if (group)
        await unwrap(
          api.PUT("/api/admin/groups/{groupId}", { params: { path: { groupId: group.id } }, body }),
        );
      else await unwrap(api.POST("/api/admin/groups", { body }));
    },
    onSaved: async (_, { name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.groups.list() });
      notifyDone(group ? `Group ${name} saved.` : `Group ${name} created.`);
      onDone();
    },
  });
  // Members who are no user listed (none should be) still show, by their own name.
  const options = new Map((users?.users ?? []).map((user) => [String(user.id), personName(user)]));
  for (const { user } of group?.users ?? [])
    if (!options.has(String(user.id))) options.set(String(user.id), personName(user));

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField {...form.getInputProps("name")} />
        <DescriptionField {...form.getInputProps("description")} />
        <Select
          label="Root role"
          description="Held by every member on top of their own. Empty: the group gives none."
          placeholder="None"
          clearable
          data={(users?.rootRoles ?? []).map((role) => ({ value: String(role.id), label: role.name }))}
          {...form.getInputProps("rootRole")}
        />
        <MultiSelect
          label="Members"
          placeholder={pickHint(form.values.members, "Pick users")}
          searchable
          data={[...options].map(([value, label]) => ({ value, label }))}
          {...form.getInputProps("members")}
          error={form.errors.users}
        />
        <FormError error={save.error} inline={["name", "rootRole", "users"]} />
        <FormActions
          submitLabel={group ? "Save group" : "Create group"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
