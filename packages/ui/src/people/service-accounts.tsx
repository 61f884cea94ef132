import { Button, Group, Modal, Stack, Table, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { FormActions, NameField } from "../components/form-fields";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { RelativeTime } from "../components/relative-time";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useFormSave } from "../components/use-form-save";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { queryKeys } from "../query-keys";
import { personName } from "./names";
import { PersonalTokens } from "./personal-tokens";
import type { RootRole } from "./queries";
import { RootRoleSelect } from "./root-role-select";

const fetchAccounts = () => unwrap(api.GET("/api/admin/service-account"));
type Account = Awaited<ReturnType<typeof fetchAccounts>>["serviceAccounts"][number];

/** Accounts that never log in: scripts act as them through their tokens, with their root role's permissions. */
export function ServiceAccounts() {
  const accounts = useQuery({ queryKey: queryKeys.serviceAccounts.list(), queryFn: fetchAccounts });
  const client = useQueryClient();
  const admin = useCan()("ADMIN");
  const editor = useModalTarget<Account>();
  const [holder, setHolder] = useState<number | null>(null);
  const changed = () => client.invalidateQueries({ queryKey: queryKeys.serviceAccounts.list() });
  const rootRoles = accounts.data?.rootRoles ?? [];
  const roleName = (id: number) => rootRoles.find((role) => role.id === id)?.name ?? `Role ${id}`;
  // Looked up on every render: the tokens shown follow the listing as it is refetched.
  const tokensOf = accounts.data?.serviceAccounts.find((account) => account.id === holder);

  const remove = useRemove(
    queryKeys.serviceAccounts.list(),
    (account: Account) =>
      unwrap(api.DELETE("/api/admin/service-account/{id}", { params: { path: { id: account.id } } })),
    (account) => `Service account ${personName(account)} deleted.`,
  );

  if (accounts.isError) return <ErrorPanel error={accounts.error} />;
  return (
    <Stack>
      <Group justify="flex-end">
        <GuardedButton verdict={admin} onClick={() => editor.open("new")}>
          New service account
        </GuardedButton>
      </Group>
      <Table striped aria-label="Service accounts" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Username</Table.Th>
            <Table.Th>Root role</Table.Th>
            <Table.Th>Tokens</Table.Th>
            <Table.Th>Created</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {accounts.data?.serviceAccounts.map((account) => (
            <Table.Tr key={account.id}>
              <Table.Td fw={600}>{personName(account)}</Table.Td>
              <Table.Td>{account.username}</Table.Td>
              <Table.Td>{roleName(account.rootRole)}</Table.Td>
              <Table.Td>{account.tokens.length}</Table.Td>
              <Table.Td>
                <RelativeTime value={account.createdAt} />
              </Table.Td>
              <Table.Td>
                <RowActions>
                  <Button
                    variant="subtle"
                    size="compact-sm"
                    aria-label={`Tokens of ${personName(account)}`}
                    onClick={() => setHolder(account.id)}
                  >
                    Tokens
                  </Button>
                  <EditButton
                    name={personName(account)}
                    verdict={admin}
                    onClick={() => editor.open(account)}
                  />
                  <DeleteButton
                    name={personName(account)}
                    what="service account"
                    verdict={admin}
                    message="Its tokens stop working at once."
                    onConfirm={() => remove(account)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {accounts.data?.serviceAccounts.length === 0 && <Text c="dimmed">No service accounts yet.</Text>}
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        title={
          editor.target === "new"
            ? "New service account"
            : `Edit service account ${personName(editor.target)}`
        }
      >
        <AccountForm
          key={editor.key}
          account={editor.target === "new" ? undefined : editor.target}
          rootRoles={rootRoles}
          onDone={editor.close}
        />
      </Modal>
      <Modal
        opened={tokensOf !== undefined}
        onClose={() => setHolder(null)}
        size="xl"
        closeOnClickOutside={false}
        title={tokensOf ? `Tokens of ${personName(tokensOf)}` : ""}
      >
        {tokensOf && (
          <PersonalTokens
            title="Tokens"
            tokens={tokensOf.tokens}
            verdict={admin}
            create={async (body) => {
              const created = await unwrap(
                api.POST("/api/admin/service-account/{id}/token", {
                  params: { path: { id: tokensOf.id } },
                  body,
                }),
              );
              await changed();
              return created;
            }}
            remove={async (token) => {
              await unwrap(
                api.DELETE("/api/admin/service-account/{id}/token/{tokenId}", {
                  params: { path: { id: tokensOf.id, tokenId: token.id } },
                }),
              );
              await changed();
              notifyDone(`Token ${token.description} deleted.`);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function AccountForm({
  account,
  rootRoles,
  onDone,
}: {
  account: Account | undefined;
  rootRoles: readonly RootRole[];
  onDone: () => void;
}) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      username: account?.username ?? "",
      name: account?.name ?? "",
      rootRole: account?.rootRole ?? rootRoles.find((role) => role.name === "Viewer")?.id ?? null,
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ username, name, rootRole }) => {
      const changes = { ...(name ? { name } : {}), ...(rootRole === null ? {} : { rootRole }) };
      if (account)
        await unwrap(
          api.PUT("/api/admin/service-account/{id}", { params: { path: { id: account.id } }, body: changes }),
        );
      else
        await unwrap(
          api.POST("/api/admin/service-account", {
            body: { username, ...changes, rootRole: rootRole ?? "Viewer" },
          }),
        );
    },
    onSaved: async () => {
      await client.invalidateQueries({ queryKey: queryKeys.serviceAccounts.list() });
      notifyDone(account ? "Service account saved." : "Service account created.");
      onDone();
    },
  });
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Username"
          description={
            account ? "A username cannot be changed." : "What events name as the author of its changes."
          }
          required
          disabled={account !== undefined}
          {...form.getInputProps("username")}
        />
        <NameField required={false} {...form.getInputProps("name")} />
        <RootRoleSelect
          rootRoles={rootRoles}
          value={form.values.rootRole}
          onChange={(id) => form.setFieldValue("rootRole", id)}
          error={form.errors.rootRole}
        />
        <FormError error={save.error} inline={["username", "name", "rootRole"]} />
        <FormActions
          submitLabel={account ? "Save service account" : "Create service account"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
