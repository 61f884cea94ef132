import { Badge, Group, Modal, Table, Text } from "@mantine/core";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { PageHeader } from "../components/page-header";
import { plural } from "../components/plural";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { type ContextField, useContextFields } from "../flags/queries";
import { queryKeys } from "../query-keys";
import { ContextFieldForm } from "./context-field-form";

export default function ContextFieldsPage() {
  const fields = useContextFields();
  const can = useCan();
  const editor = useModalTarget<ContextField>();

  const remove = useRemove(
    queryKeys.contextFields.list(),
    (name: string) => unwrap(api.DELETE("/api/admin/context/{name}", { params: { path: { name } } })),
    (name) => `Context field ${name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Context fields"
        description="What SDKs tell the service about a request, which constraints can test."
        actions={
          <GuardedButton verdict={can("CREATE_CONTEXT_FIELD")} onClick={() => editor.open("new")}>
            New context field
          </GuardedButton>
        }
      />
      {fields.isError && <ErrorPanel error={fields.error} />}
      <Table striped aria-label="Context fields" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Legal values</Table.Th>
            <Table.Th>Used in</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {fields.data?.map((field) => (
            <Table.Tr key={field.name}>
              <Table.Td>
                <Group gap="xs">
                  <Text fw={600}>{field.name}</Text>
                  {field.stickiness && (
                    <Badge variant="light" size="sm">
                      Stickiness
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>{field.description}</Table.Td>
              <Table.Td>
                {field.legalValues.length === 0
                  ? "Any"
                  : field.legalValues.map((legal) => legal.value).join(", ")}
              </Table.Td>
              <Table.Td>
                {plural(field.usedInFeatures, "flag")}, {plural(field.usedInProjects, "project")}
              </Table.Td>
              <Table.Td>
                <RowActions>
                  <EditButton
                    name={field.name}
                    verdict={can("UPDATE_CONTEXT_FIELD")}
                    onClick={() => editor.open(field)}
                  />
                  <DeleteButton
                    name={field.name}
                    what="context field"
                    verdict={can("DELETE_CONTEXT_FIELD")}
                    message="Constraints can no longer be written on it. The service refuses while a constraint uses it."
                    onConfirm={() => remove(field.name)}
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
        size="lg"
        title={editor.target === "new" ? "New context field" : `Edit context field ${editor.target.name}`}
      >
        <ContextFieldForm
          key={editor.key}
          field={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}
