import { Modal, Stack, Table, Text, TextInput } from "@mantine/core";
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
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useFormSave } from "../components/use-form-save";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { useTagTypes } from "../flags/queries";
import { queryKeys } from "../query-keys";

type TagType = NonNullable<ReturnType<typeof useTagTypes>["data"]>["tagTypes"][number];

export default function TagTypesPage() {
  const tagTypes = useTagTypes();
  const can = useCan();
  const editor = useModalTarget<TagType>();

  const remove = useRemove(
    queryKeys.tagTypes.list(),
    (name: string) => unwrap(api.DELETE("/api/admin/tag-types/{name}", { params: { path: { name } } })),
    (name) => `Tag type ${name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Tag types"
        description="The kinds of tag flags can carry, such as a team or a ticket."
        actions={
          <GuardedButton verdict={can("CREATE_TAG_TYPE")} onClick={() => editor.open("new")}>
            New tag type
          </GuardedButton>
        }
      />
      {tagTypes.isError && <ErrorPanel error={tagTypes.error} />}
      <Table striped aria-label="Tag types" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Icon</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tagTypes.data?.tagTypes.map((tagType) => (
            <Table.Tr key={tagType.name}>
              <Table.Td fw={600}>{tagType.name}</Table.Td>
              <Table.Td>{tagType.description}</Table.Td>
              <Table.Td>{tagType.icon}</Table.Td>
              <Table.Td>
                <RowActions>
                  <EditButton
                    name={tagType.name}
                    verdict={can("UPDATE_TAG_TYPE")}
                    onClick={() => editor.open(tagType)}
                  />
                  <DeleteButton
                    name={tagType.name}
                    what="tag type"
                    verdict={can("DELETE_TAG_TYPE")}
                    message="Every tag of this type is taken off the flags that carry it."
                    onConfirm={() => remove(tagType.name)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {tagTypes.data?.tagTypes.length === 0 && <Text c="dimmed">No tag types yet.</Text>}
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        title={editor.target === "new" ? "New tag type" : `Edit tag type ${editor.target.name}`}
      >
        <TagTypeForm
          key={editor.key}
          tagType={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}

function TagTypeForm({ tagType, onDone }: { tagType: TagType | undefined; onDone: () => void }) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      name: tagType?.name ?? "",
      description: tagType?.description ?? "",
      icon: tagType?.icon ?? "",
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, description, icon }) => {
      const changes = { description: description || null, icon: icon || null };
      if (tagType)
        await unwrap(
          api.PUT("/api/admin/tag-types/{name}", { params: { path: { name: tagType.name } }, body: changes }),
        );
      else await unwrap(api.POST("/api/admin/tag-types", { body: { name, ...changes } }));
    },
    onSaved: async (_, { name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.tagTypes.list() });
      notifyDone(tagType ? `Tag type ${name} saved.` : `Tag type ${name} created.`);
      onDone();
    },
  });
  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField
          description={tagType ? "A tag type keeps its name." : "2 to 50 URL-safe characters."}
          disabled={tagType !== undefined}
          {...form.getInputProps("name")}
        />
        <DescriptionField {...form.getInputProps("description")} />
        <TextInput
          label="Icon"
          description="The name of an icon, for UIs that show one."
          {...form.getInputProps("icon")}
        />
        <FormError error={save.error} inline={["name"]} />
        <FormActions
          submitLabel={tagType ? "Save tag type" : "Create tag type"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
