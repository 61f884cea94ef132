import {
  Avatar,
  Button,
  Group,
  Modal,
  MultiSelect,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError, fieldError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { pickHint } from "../components/pick-hint";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { personName } from "./names";
import { fetchUsers } from "./users-page";

const fetchGroups = () => unwrap(api.GET("/api/admin/groups"));
type GroupView = Awaited<ReturnType<typeof fetchGroups>>["groups"][number];
type Users = Awaited<ReturnType<typeof fetchUsers>>;

export default function GroupsPage() {
  const groups = useQuery({ queryKey: ["groups"], queryFn: fetchGroups });
  const users = useQuery({ queryKey: ["users"], queryFn: fetchUsers });
  const admin = useCan()("ADMIN");
  const editor = useModalTarget<GroupView>();
  const roleName = (id: number | null) =>
    id === null ? "None" : (users.data?.rootRoles.find((role) => role.id === id)?.name ?? `Role ${id}`);

  const remove = useRemove(
    ["groups"],
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
  users: Users | undefined;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState(group?.name ?? "");
  const [description, setDescription] = useState(group?.description ?? "");
  const [rootRole, setRootRole] = useState<string | null>(
    group?.rootRole == null ? null : String(group.rootRole),
  );
  const [members, setMembers] = useState<string[]>(group?.users.map(({ user }) => String(user.id)) ?? []);
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
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
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["groups"] });
      notifyDone(group ? `Group ${name} saved.` : `Group ${name} created.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  // Members who are no user listed (none should be) still show, by their own name.
  const options = new Map((users?.users ?? []).map((user) => [String(user.id), personName(user)]));
  for (const { user } of group?.users ?? [])
    if (!options.has(String(user.id))) options.set(String(user.id), personName(user));

  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Select
          label="Root role"
          description="Held by every member on top of their own. Empty: the group gives none."
          placeholder="None"
          clearable
          data={(users?.rootRoles ?? []).map((role) => ({ value: String(role.id), label: role.name }))}
          value={rootRole}
          onChange={setRootRole}
          error={fieldError(save.error, "rootRole")}
        />
        <MultiSelect
          label="Members"
          placeholder={pickHint(members, "Pick users")}
          searchable
          data={[...options].map(([value, label]) => ({ value, label }))}
          value={members}
          onChange={setMembers}
          error={fieldError(save.error, "users")}
        />
        <FormError error={save.error} inline={["name", "rootRole", "users"]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {group ? "Save group" : "Create group"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
