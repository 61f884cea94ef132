import { Fieldset, Group, Stack, Switch, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { EditableList, RemoveRowButton } from "../components/editable-list";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { useFormSave } from "../components/use-form-save";
import type { ContextField } from "../flags/queries";
import { queryKeys } from "../query-keys";

type LegalValue = ContextField["legalValues"][number];

/** Creates a context field, or changes one: its description, stickiness and legal values, saved together. */
export function ContextFieldForm({ field, onDone }: { field: ContextField | undefined; onDone: () => void }) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      name: field?.name ?? "",
      description: field?.description ?? "",
      stickiness: field?.stickiness ?? false,
      legalValues: field?.legalValues ?? ([] as LegalValue[]),
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, description, stickiness, legalValues }) => {
      const changes = {
        description: description || null,
        stickiness,
        legalValues: legalValues.map(({ value, description }) =>
          description ? { value, description } : { value },
        ),
      };
      if (field)
        await unwrap(
          api.PUT("/api/admin/context/{name}", { params: { path: { name: field.name } }, body: changes }),
        );
      else await unwrap(api.POST("/api/admin/context", { body: { name, ...changes } }));
    },
    onSaved: async (_, { name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.contextFields.list() });
      notifyDone(field ? `Context field ${name} saved.` : `Context field ${name} created.`);
      onDone();
    },
  });

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField
          description={
            field ? "A context field keeps its name." : "As SDKs send it in the context, e.g. region."
          }
          disabled={field !== undefined}
          {...form.getInputProps("name")}
        />
        <DescriptionField {...form.getInputProps("description")} />
        <Switch
          label="Stickiness"
          description="Offer this field to keep gradual rollouts and variants stable for whoever shares its value."
          {...form.getInputProps("stickiness", { type: "checkbox" })}
        />
        <Fieldset legend="Legal values">
          <Text size="sm" c="dimmed" mb="xs">
            With legal values, constraints on this field choose from them; without, any value can be typed.
          </Text>
          <EditableList
            value={form.values.legalValues}
            onChange={(next) => form.setFieldValue("legalValues", next)}
            gap="xs"
            size="xs"
            newItem={(): LegalValue => ({ value: "" })}
            addLabel="Add legal value"
          >
            {({ index, remove }) => (
              <Group align="flex-end" wrap="nowrap">
                <TextInput
                  label={`Value ${index + 1}`}
                  required
                  maxLength={100}
                  flex={1}
                  {...form.getInputProps(`legalValues.${index}.value`)}
                />
                <TextInput
                  label={`Description of value ${index + 1}`}
                  flex={2}
                  {...form.getInputProps(`legalValues.${index}.description`)}
                  value={form.values.legalValues[index]?.description ?? ""}
                />
                <RemoveRowButton label={`Remove value ${index + 1}`} mb={2} onClick={remove} />
              </Group>
            )}
          </EditableList>
        </Fieldset>
        <FormError error={save.error} inline={["name"]} />
        <FormActions
          submitLabel={field ? "Save context field" : "Create context field"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
