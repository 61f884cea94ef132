import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  MultiSelect,
  Select,
  Stack,
  Table,
  Text,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan, type Verdict } from "../auth/session";
import { ConfirmButton } from "../components/confirm-button";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { pickHint } from "../components/pick-hint";
import { plural } from "../components/plural";
import { RelativeTime } from "../components/relative-time";
import { useGroups, useUsers } from "../people/queries";
import { queryKeys } from "../query-keys";
import type { Project } from "./queries";

// What the service asks for reading and changing a project's access.
const READ = ["PROJECT_USER_ACCESS_READ", "UPDATE_PROJECT"];
const WRITE = ["PROJECT_USER_ACCESS_WRITE", "UPDATE_PROJECT"];

function useAccess(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.projects.access(projectId),
    queryFn: () =>
      unwrap(api.GET("/api/admin/projects/{projectId}/access", { params: { path: { projectId } } })),
    enabled,
  });
}

type Access = NonNullable<ReturnType<typeof useAccess>["data"]>;

/** A user or a group holding roles in the project, as one row shows either. */
interface Member {
  kind: "user" | "group";
  id: number;
  name: string;
  detail: string;
  roles: number[];
  addedAt: string;
}

function members(access: Access): Member[] {
  return [
    ...access.users.map((user) => ({
      kind: "user" as const,
      id: user.id,
      name: user.name || user.username || user.email || `User ${user.id}`,
      detail: user.email ?? user.username ?? "",
      roles: user.roles,
      addedAt: user.addedAt,
    })),
    ...access.groups.map((group) => ({
      kind: "group" as const,
      id: group.id,
      name: group.name,
      detail: `Group of ${plural(group.userCount, "user")}`,
      roles: group.roles,
      addedAt: group.addedAt,
    })),
  ];
}

/** Who holds which roles in the project: users and groups, changed by those allowed to. */
export function AccessTab({ project }: { project: Project }) {
  const can = useCan();
  const scope = { project: project.id };
  const readable = can(READ, scope);
  const writable = can(WRITE, scope);
  const access = useAccess(project.id, readable.allowed);
  const [adding, { open, close }] = useDisclosure();

  if (!readable.allowed) {
    return (
      <Alert color="gray" title="Members are not shown to you">
        {readable.reason}
      </Alert>
    );
  }
  if (access.isPending) return <Loader aria-label="Loading members" />;
  if (access.isError) return <ErrorPanel error={access.error} />;
  const rows = members(access.data);

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          A member's roles decide what they may do in this project, on top of their root role.
        </Text>
        <GuardedButton verdict={writable} onClick={open}>
          Add member
        </GuardedButton>
      </Group>
      <Table aria-label="Members" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Member</Table.Th>
            <Table.Th w={300}>Roles</Table.Th>
            <Table.Th w={140}>Added</Table.Th>
            <Table.Th w={120}>
              <Text span size="sm" fw={700}>
                Actions
              </Text>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={4}>
                <Text c="dimmed" size="sm">
                  No one holds a role in this project yet.
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {rows.map((member) => (
            <MemberRow
              key={`${member.kind}:${member.id}`}
              project={project}
              member={member}
              roles={access.data.roles}
              verdict={writable}
            />
          ))}
        </Table.Tbody>
      </Table>
      <Modal opened={adding} onClose={close} title="Add member" size="lg">
        <AddMemberForm project={project} access={access.data} onDone={close} />
      </Modal>
    </Stack>
  );
}

function useAccessChanged(projectId: string) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.projects.access(projectId) }),
      client.invalidateQueries({ queryKey: queryKeys.projects.detail(projectId), exact: true }),
      client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
    ]);
}

function MemberRow({
  project,
  member,
  roles,
  verdict,
}: {
  project: Project;
  member: Member;
  roles: Access["roles"];
  verdict: Verdict;
}) {
  const changed = useAccessChanged(project.id);
  const projectId = project.id;
  const setRoles = useMutation({
    mutationFn: (ids: number[]) =>
      unwrap(
        member.kind === "user"
          ? api.PUT("/api/admin/projects/{projectId}/users/{userId}/roles", {
              params: { path: { projectId, userId: member.id } },
              body: { roles: ids },
            })
          : api.PUT("/api/admin/projects/{projectId}/groups/{groupId}/roles", {
              params: { path: { projectId, groupId: member.id } },
              body: { roles: ids },
            }),
      ),
    onSuccess: async () => {
      await changed();
      notifyDone(`Roles of ${member.name} changed`);
    },
  });
  const shown = (setRoles.isPending && setRoles.variables) || member.roles;
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {member.name}
          </Text>
          {member.kind === "group" && (
            <Badge size="sm" variant="light">
              group
            </Badge>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {member.detail}
        </Text>
      </Table.Td>
      <Table.Td>
        <MultiSelect
          aria-label={`Roles of ${member.name}`}
          placeholder={pickHint(shown, "Pick one or more roles")}
          aria-description={verdict.reason}
          title={verdict.reason}
          data={roles.map((role) => ({ value: String(role.id), label: role.name }))}
          value={shown.map(String)}
          // A member keeps at least one role here; removing them is the row's own action.
          onChange={(ids) => ids.length > 0 && setRoles.mutate(ids.map(Number))}
          disabled={!verdict.allowed || setRoles.isPending}
        />
      </Table.Td>
      <Table.Td fz="sm">
        <RelativeTime value={member.addedAt} />
      </Table.Td>
      <Table.Td>
        <ConfirmButton
          verdict={verdict}
          aria-label={`Remove ${member.name}`}
          title={`Remove ${member.name} from ${project.name}?`}
          message={`${member.name} loses every role in this project.`}
          confirmLabel="Remove"
          onConfirm={async () => {
            await unwrap(
              member.kind === "user"
                ? api.DELETE("/api/admin/projects/{projectId}/users/{userId}/roles", {
                    params: { path: { projectId, userId: member.id } },
                  })
                : api.DELETE("/api/admin/projects/{projectId}/groups/{groupId}/roles", {
                    params: { path: { projectId, groupId: member.id } },
                  }),
            );
            await changed();
            notifyDone(`${member.name} removed from ${project.name}`);
          }}
        >
          Remove
        </ConfirmButton>
      </Table.Td>
    </Table.Tr>
  );
}

function AddMemberForm({
  project,
  access,
  onDone,
}: {
  project: Project;
  access: Access;
  onDone: () => void;
}) {
  const can = useCan();
  // Only admins may list every user; others can give roles to groups.
  const listUsers = can("ADMIN");
  const changed = useAccessChanged(project.id);
  const users = useUsers(listUsers.allowed);
  const groups = useGroups();
  const [userIds, setUserIds] = useState<string[]>([]);
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const [role, setRole] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/access", {
          params: { path: { projectId: project.id } },
          body: { roles: [Number(role)], users: userIds.map(Number), groups: groupIds.map(Number) },
        }),
      ),
    meta: { quiet: true },
    onSuccess: async () => {
      await changed();
      notifyDone(`Access to ${project.name} given`);
      onDone();
    },
  });
  const present = (kind: "users" | "groups") => new Set(access[kind].map((entry) => entry.id));
  const userOptions = (users.data?.users ?? [])
    .filter((user) => user.accountType === "User" && !present("users").has(user.id))
    .map((user) => ({
      value: String(user.id),
      label: user.name || user.username || user.email || `User ${user.id}`,
    }));
  const groupOptions = (groups.data?.groups ?? [])
    .filter((group) => !present("groups").has(group.id))
    .map((group) => ({ value: String(group.id), label: group.name }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        <MultiSelect
          label="Users"
          description={
            listUsers.allowed ? undefined : `Users can be listed by admins only. ${listUsers.reason}`
          }
          placeholder={listUsers.allowed ? pickHint(userIds, "Pick users") : undefined}
          searchable
          data={userOptions}
          value={userIds}
          onChange={setUserIds}
          disabled={!listUsers.allowed}
          nothingFoundMessage="No such user"
        />
        <MultiSelect
          label="Groups"
          placeholder={pickHint(groupIds, "Pick groups")}
          searchable
          data={groupOptions}
          value={groupIds}
          onChange={setGroupIds}
          nothingFoundMessage="No such group"
        />
        <Select
          label="Role"
          required
          description={access.roles.find((entry) => String(entry.id) === role)?.description}
          data={access.roles.map((entry) => ({ value: String(entry.id), label: entry.name }))}
          value={role}
          onChange={setRole}
        />
        <FormError error={add.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button
            type="submit"
            loading={add.isPending}
            disabled={!role || userIds.length + groupIds.length === 0}
          >
            Add member
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
