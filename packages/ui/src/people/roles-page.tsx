import { Badge, Button, List, Loader, Modal, Stack, Table, Text, Title } from "@mantine/core";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { PageHeader } from "../components/page-header";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { queryKeys } from "../query-keys";
import { isPredefined, isRootRole, type Role, useRole, useRoles } from "./queries";
import { RoleForm } from "./role-form";

export default function RolesPage() {
  const roles = useRoles();
  const admin = useCan()("ADMIN");
  const editor = useModalTarget<Role>();
  const viewer = useModalTarget<Role>();

  const remove = useRemove(
    queryKeys.roles.list(),
    (role: Role) => unwrap(api.DELETE("/api/admin/roles/{id}", { params: { path: { id: role.id } } })),
    (role) => `Role ${role.name} deleted.`,
  );

  const table = (label: string, list: Role[]) => (
    <Stack gap="xs">
      <Title order={3}>{label}</Title>
      <Table striped aria-label={label} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Kind</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((role) => (
            <Table.Tr key={role.id}>
              <Table.Td fw={600}>{role.name}</Table.Td>
              <Table.Td>{role.description}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={isPredefined(role) ? "gray" : "grape"}>
                  {isPredefined(role) ? "Predefined" : "Custom"}
                </Badge>
              </Table.Td>
              <Table.Td>
                <RowActions>
                  {isPredefined(role) ? (
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`View ${role.name}`}
                      onClick={() => viewer.open(role)}
                    >
                      View
                    </Button>
                  ) : (
                    <>
                      <EditButton name={role.name} verdict={admin} onClick={() => editor.open(role)} />
                      <DeleteButton
                        name={role.name}
                        what="role"
                        verdict={admin}
                        message="The service refuses while anyone holds it: as a root role, through a group, or in a project."
                        onConfirm={() => remove(role)}
                      />
                    </>
                  )}
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );

  return (
    <>
      <PageHeader
        title="Roles"
        description="Root roles hold everywhere, project roles in the projects they are given in. Predefined roles are read-only."
        actions={
          <GuardedButton verdict={admin} onClick={() => editor.open("new")}>
            New role
          </GuardedButton>
        }
      />
      {roles.isError && <ErrorPanel error={roles.error} />}
      {roles.data && (
        <Stack gap="xl">
          {table("Root roles", roles.data.roles.filter(isRootRole))}
          {table(
            "Project roles",
            roles.data.roles.filter((role) => !isRootRole(role)),
          )}
        </Stack>
      )}
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        size="xl"
        closeOnClickOutside={false}
        title={editor.target === "new" ? "New role" : `Edit role ${editor.target.name}`}
      >
        <RoleForm
          key={editor.key}
          role={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
      <Modal
        opened={viewer.opened}
        onClose={viewer.close}
        size="lg"
        title={viewer.target === "new" ? "" : `Role ${viewer.target.name}`}
      >
        {viewer.target !== "new" && <PredefinedRole id={viewer.target.id} />}
      </Modal>
    </>
  );
}

/** A predefined role's permissions, read only: they are the service's own and cannot be changed. */
function PredefinedRole({ id }: { id: number }) {
  const role = useRole(id);
  if (role.isError) return <ErrorPanel error={role.error} />;
  if (!role.data) return <Loader aria-label="Loading" />;
  return (
    <Stack>
      <Text>{role.data.description}</Text>
      <Text c="dimmed" size="sm">
        A predefined role: it cannot be changed or deleted. Make a custom role for another set of permissions.
      </Text>
      <List aria-label={`Permissions of ${role.data.name}`}>
        {role.data.permissions.map((permission) => (
          <List.Item key={`${permission.name}@${permission.environment ?? ""}`}>
            {permission.displayName}
            {permission.type === "environment" && ` (${permission.environment ?? "every environment"})`}
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
