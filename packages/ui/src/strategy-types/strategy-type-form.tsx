import { Checkbox, Fieldset, Group, Select, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQueryClient } from "@tanstack/react-query";
import { api, type paths, unwrap } from "../api/client";
import { EditableList, RemoveRowButton } from "../components/editable-list";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { useFormSave } from "../components/use-form-save";
import type { StrategyDefinition } from "../flags/queries";
import { queryKeys } from "../query-keys";

type Definition = paths["/api/admin/strategies"]["post"]["requestBody"]["content"]["application/json"];
type Parameter = NonNullable<Definition["parameters"]>[number];

const PARAMETER_TYPES: { value: Parameter["type"]; label: string }[] = [
  { value: "string", label: "String" },
  { value: "percentage", label: "Percentage (0-100)" },
  { value: "list", label: "List of strings" },
  { value: "number", label: "Number" },
  { value: "boolean", label: "Boolean" },
];
const isParameterType = (type: string): type is Parameter["type"] =>
  PARAMETER_TYPES.some((option) => option.value === type);

/** Creates a custom strategy type, or changes one: its display name, description and parameters. */
export function StrategyTypeForm({
  strategy,
  onDone,
}: {
  strategy: StrategyDefinition | undefined;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      name: strategy?.name ?? "",
      displayName: strategy?.displayName ?? "",
      description: strategy?.description ?? "",
      // A stored type this screen does not offer is shown as a string; saving makes it one.
      parameters: (strategy?.parameters ?? []).map(
        (parameter): Parameter => ({
          ...parameter,
          type: isParameterType(parameter.type) ? parameter.type : "string",
        }),
      ),
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, displayName, description, parameters }) => {
      const body = { displayName: displayName || null, description: description || null, parameters };
      if (strategy)
        await unwrap(
          api.PUT("/api/admin/strategies/{name}", { params: { path: { name: strategy.name } }, body }),
        );
      else await unwrap(api.POST("/api/admin/strategies", { body: { name, ...body } }));
    },
    onSaved: async (_, { name }) => {
      await client.invalidateQueries({ queryKey: queryKeys.strategyTypes.list() });
      notifyDone(strategy ? `Strategy ${name} saved.` : `Strategy ${name} created.`);
      onDone();
    },
  });

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField
          description={
            strategy
              ? "A strategy keeps its name: SDKs look it up by it."
              : "As your SDKs' custom strategy is registered."
          }
          disabled={strategy !== undefined}
          {...form.getInputProps("name")}
        />
        <TextInput label="Display name" {...form.getInputProps("displayName")} />
        <DescriptionField {...form.getInputProps("description")} />
        <Fieldset legend="Parameters">
          <EditableList
            value={form.values.parameters}
            onChange={(next) => form.setFieldValue("parameters", next)}
            size="xs"
            newItem={(): Parameter => ({ name: "", type: "string", description: "", required: false })}
            addLabel="Add parameter"
            empty="No parameters: a flag's strategy of this type is set up by its constraints alone."
          >
            {({ item, index, change, remove }) => (
              <Group align="flex-end" wrap="nowrap">
                <TextInput
                  label={`Parameter ${index + 1} name`}
                  required
                  flex={2}
                  {...form.getInputProps(`parameters.${index}.name`)}
                />
                <Select
                  label={`Parameter ${index + 1} type`}
                  data={PARAMETER_TYPES}
                  value={item.type}
                  onChange={(value) => value && isParameterType(value) && change({ ...item, type: value })}
                  allowDeselect={false}
                  flex={2}
                />
                <TextInput
                  label={`Parameter ${index + 1} description`}
                  flex={3}
                  {...form.getInputProps(`parameters.${index}.description`)}
                  value={item.description ?? ""}
                />
                <Checkbox
                  label="Required"
                  aria-label={`Parameter ${index + 1} required`}
                  mb={8}
                  {...form.getInputProps(`parameters.${index}.required`, { type: "checkbox" })}
                  checked={item.required ?? false}
                />
                <RemoveRowButton label={`Remove parameter ${index + 1}`} mb={2} onClick={remove} />
              </Group>
            )}
          </EditableList>
        </Fieldset>
        <FormError error={save.error} inline={["name"]} />
        <FormActions
          submitLabel={strategy ? "Save strategy type" : "Create strategy type"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
