import { Badge, Group, Modal, Stack, Table, Tabs, Text } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan, useMe } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { RelativeTime } from "../components/relative-time";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { SecretOnce } from "../components/secret-once";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { queryKeys } from "../query-keys";
import { personName } from "./names";
import { type User, useUsers } from "./queries";
import { ServiceAccounts } from "./service-accounts";
import { UserForm } from "./user-form";

export default function UsersPage() {
  return (
    <>
      <PageHeader
        title="Users"
        description="The people who log in, and the service accounts scripts act as."
      />
      <Tabs defaultValue="people" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="people">People</Tabs.Tab>
          <Tabs.Tab value="service-accounts">Service accounts</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="people">
          <People />
        </Tabs.Panel>
        <Tabs.Panel value="service-accounts">
          <ServiceAccounts />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

function People() {
  const users = useUsers();
  const me = useMe();
  const client = useQueryClient();
  const admin = useCan()("ADMIN");
  const editor = useModalTarget<User>();
  const [resetLink, setResetLink] = useState<{ user: string; url: string } | null>(null);
  const changed = () => client.invalidateQueries({ queryKey: queryKeys.users.list() });
  const roleName = (id: number) => users.data?.rootRoles.find((role) => role.id === id)?.name ?? `Role ${id}`;

  const activation = useMutation({
    mutationFn: (user: User) =>
      unwrap(
        api.PUT("/api/admin/user-admin/{id}", {
          params: { path: { id: user.id } },
          body: { isActive: !user.isActive },
        }),
      ),
    onSuccess: (user) =>
      notifyDone(
        user.isActive
          ? `${personName(user)} can log in again.`
          : `${personName(user)} is deactivated: their sessions and tokens have stopped working.`,
      ),
    onSettled: changed,
  });
  const reset = useMutation({
    mutationFn: (user: User) =>
      unwrap(api.POST("/api/admin/user-admin/reset-password", { body: { id: String(user.id) } })),
    onSuccess: ({ resetPasswordUrl }, user) =>
      setResetLink({ user: personName(user), url: resetPasswordUrl }),
  });
  const remove = useRemove(
    queryKeys.users.list(),
    (user: User) => unwrap(api.DELETE("/api/admin/user-admin/{id}", { params: { path: { id: user.id } } })),
    (user) => `${personName(user)} deleted.`,
  );

  if (users.isError) return <ErrorPanel error={users.error} />;
  return (
    <Stack>
      <Group justify="flex-end">
        <GuardedButton verdict={admin} onClick={() => editor.open("new")}>
          New user
        </GuardedButton>
      </Group>
      <Table striped aria-label="People" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Root role</Table.Th>
            <Table.Th>Last login</Table.Th>
            <Table.Th>Status</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {users.data?.users.map((user) => {
            const name = personName(user);
            const yourself = user.id === me.data?.user.id;
            return (
              <Table.Tr key={user.id}>
                <Table.Td>
                  <Stack gap={0}>
                    <Text fw={600}>
                      {name}
                      {yourself && (
                        <Text span c="dimmed" size="sm">
                          {" "}
                          (you)
                        </Text>
                      )}
                    </Text>
                    {user.username && user.username !== name && (
                      <Text size="xs" c="dimmed">
                        {user.username}
                      </Text>
                    )}
                  </Stack>
                </Table.Td>
                <Table.Td>{user.email}</Table.Td>
                <Table.Td>{roleName(user.rootRole)}</Table.Td>
                <Table.Td>
                  <RelativeTime value={user.seenAt} />
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={user.isActive ? "green" : "gray"}>
                    {user.isActive ? "Active" : "Deactivated"}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <RowActions>
                    <EditButton name={name} verdict={admin} onClick={() => editor.open(user)} />
                    <GuardedButton
                      verdict={admin}
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`Reset password of ${name}`}
                      loading={reset.isPending && reset.variables.id === user.id}
                      onClick={() => reset.mutate(user)}
                    >
                      Reset password
                    </GuardedButton>
                    <GuardedButton
                      verdict={admin}
                      variant="subtle"
                      size="compact-sm"
                      color={user.isActive ? "orange" : "green"}
                      aria-label={`${user.isActive ? "Deactivate" : "Activate"} ${name}`}
                      loading={activation.isPending && activation.variables.id === user.id}
                      onClick={() => activation.mutate(user)}
                    >
                      {user.isActive ? "Deactivate" : "Activate"}
                    </GuardedButton>
                    <DeleteButton
                      name={name}
                      what="user"
                      title={`Delete ${name}?`}
                      verdict={admin}
                      message="Their sessions and personal access tokens stop working at once. Deactivating keeps their account instead."
                      onConfirm={() => remove(user)}
                    />
                  </RowActions>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        closeOnClickOutside={false}
        title={editor.target === "new" ? "New user" : `Edit ${personName(editor.target)}`}
      >
        <UserForm
          key={editor.key}
          user={editor.target === "new" ? undefined : editor.target}
          rootRoles={users.data?.rootRoles ?? []}
          onDone={editor.close}
        />
      </Modal>
      <Modal
        opened={resetLink !== null}
        onClose={() => setResetLink(null)}
        closeOnClickOutside={false}
        title={`Password reset link for ${resetLink?.user ?? ""}`}
      >
        {resetLink && (
          <SecretOnce
            label="Reset link"
            value={resetLink.url}
            copyLabel="Copy link"
            warning="Give this link to them: with it they set a new password, once, within 24 hours. It is not shown again."
            onDone={() => setResetLink(null)}
          />
        )}
      </Modal>
    </Stack>
  );
}
