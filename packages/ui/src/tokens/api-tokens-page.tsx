import { Badge, Modal, Table, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { RelativeTime } from "../components/relative-time";
import { ActionsHeader, DeleteButton } from "../components/row-actions";
import { queryKeys } from "../query-keys";
import { NewApiTokenForm, TOKEN_TYPES } from "./new-api-token-form";

const fetchTokens = () => unwrap(api.GET("/api/admin/api-tokens"));

// What deleting a token of each type asks, as the service's token permissions say.
const DELETE_PERMISSION = {
  client: "DELETE_CLIENT_API_TOKEN",
  frontend: "DELETE_FRONTEND_API_TOKEN",
  admin: "ADMIN",
} as const;

export default function ApiTokensPage() {
  const tokens = useQuery({ queryKey: queryKeys.apiTokens.list(), queryFn: fetchTokens });
  const client = useQueryClient();
  const can = useCan();
  const [creating, { open, close }] = useDisclosure();

  const remove = async (id: number, name: string) => {
    await unwrap(api.DELETE("/api/admin/api-tokens/{token}", { params: { path: { token: String(id) } } }));
    await client.invalidateQueries({ queryKey: queryKeys.apiTokens.list() });
    notifyDone(`API token ${name} deleted: SDKs using it are refused from now on.`);
  };

  return (
    <>
      <PageHeader
        title="API tokens"
        description="Tokens for SDKs (backend and frontend) and for scripts calling the admin API. Each secret is shown once, when it is made."
        actions={
          <GuardedButton verdict={can(TOKEN_TYPES.map((type) => type.create))} onClick={open}>
            New API token
          </GuardedButton>
        }
      />
      {tokens.isError && <ErrorPanel error={tokens.error} />}
      <Table striped aria-label="API tokens" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Projects</Table.Th>
            <Table.Th>Environment</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last seen</Table.Th>
            <Table.Th>Expires</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tokens.data?.tokens.map((token) => (
            <Table.Tr key={token.id}>
              <Table.Td fw={600}>{token.tokenName}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={token.type === "admin" ? "red" : "blue"}>
                  {TOKEN_TYPES.find((type) => type.value === token.type)?.label ?? token.type}
                </Badge>
              </Table.Td>
              <Table.Td>{token.projects.includes("*") ? "All projects" : token.projects.join(", ")}</Table.Td>
              <Table.Td>{token.environment === "*" ? "All environments" : token.environment}</Table.Td>
              <Table.Td>
                <RelativeTime value={token.createdAt} />
              </Table.Td>
              <Table.Td>
                <RelativeTime value={token.seenAt} />
              </Table.Td>
              <Table.Td>
                <RelativeTime value={token.expiresAt} />
              </Table.Td>
              <Table.Td ta="right">
                <DeleteButton
                  name={token.tokenName}
                  what="token"
                  title={`Delete API token ${token.tokenName}?`}
                  verdict={can(DELETE_PERMISSION[token.type])}
                  message="Whatever uses it is refused from the moment it is deleted. This cannot be undone."
                  onConfirm={() => remove(token.id, token.tokenName)}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {tokens.data?.tokens.length === 0 && <Text c="dimmed">No API tokens you may see.</Text>}
      <Modal opened={creating} onClose={close} title="New API token" size="lg" closeOnClickOutside={false}>
        <NewApiTokenForm onDone={close} />
      </Modal>
    </>
  );
}
