import {
  ActionIcon,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { IconTrash } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, type paths, unwrap } from "../api/client";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import type { StrategyDefinition } from "../flags/queries";

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
  const [name, setName] = useState(strategy?.name ?? "");
  const [displayName, setDisplayName] = useState(strategy?.displayName ?? "");
  const [description, setDescription] = useState(strategy?.description ?? "");
  const [parameters, setParameters] = useState<Parameter[]>(
    // A stored type this screen does not offer is shown as a string; saving makes it one.
    (strategy?.parameters ?? []).map((parameter) => ({
      ...parameter,
      type: isParameterType(parameter.type) ? parameter.type : "string",
    })),
  );
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
      const body = { displayName: displayName || null, description: description || null, parameters };
      if (strategy)
        await unwrap(
          api.PUT("/api/admin/strategies/{name}", { params: { path: { name: strategy.name } }, body }),
        );
      else await unwrap(api.POST("/api/admin/strategies", { body: { name, ...body } }));
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["strategy-types"] });
      notifyDone(strategy ? `Strategy ${name} saved.` : `Strategy ${name} created.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const change = (index: number, patch: Partial<Parameter>) =>
    setParameters((list) =>
      list.map((parameter, at) => (at === index ? { ...parameter, ...patch } : parameter)),
    );

  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          description={
            strategy
              ? "A strategy keeps its name: SDKs look it up by it."
              : "As your SDKs' custom strategy is registered."
          }
          required
          disabled={strategy !== undefined}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <TextInput
          label="Display name"
          value={displayName}
          onChange={(event) => setDisplayName(event.currentTarget.value)}
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Fieldset legend="Parameters">
          <Stack gap="sm">
            {parameters.length === 0 && (
              <Text size="sm" c="dimmed">
                No parameters: a flag's strategy of this type is set up by its constraints alone.
              </Text>
            )}
            {parameters.map((parameter, index) => (
              // Parameters are edited in place, names included: their position is what identifies them here.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <Group key={index} align="flex-end" wrap="nowrap">
                <TextInput
                  label={`Parameter ${index + 1} name`}
                  required
                  value={parameter.name}
                  onChange={(event) => change(index, { name: event.currentTarget.value })}
                  flex={2}
                />
                <Select
                  label={`Parameter ${index + 1} type`}
                  data={PARAMETER_TYPES}
                  value={parameter.type}
                  onChange={(value) => value && isParameterType(value) && change(index, { type: value })}
                  allowDeselect={false}
                  flex={2}
                />
                <TextInput
                  label={`Parameter ${index + 1} description`}
                  value={parameter.description ?? ""}
                  onChange={(event) => change(index, { description: event.currentTarget.value })}
                  flex={3}
                />
                <Checkbox
                  label="Required"
                  aria-label={`Parameter ${index + 1} required`}
                  checked={parameter.required ?? false}
                  onChange={(event) => change(index, { required: event.currentTarget.checked })}
                  mb={8}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="lg"
                  mb={2}
                  aria-label={`Remove parameter ${index + 1}`}
                  onClick={() => setParameters((list) => list.filter((_, at) => at !== index))}
                >
                  <IconTrash size={18} />
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button
                variant="light"
                size="compact-sm"
                onClick={() =>
                  setParameters((list) => [
                    ...list,
                    { name: "", type: "string", description: "", required: false },
                  ])
                }
              >
                Add parameter
              </Button>
            </Group>
          </Stack>
        </Fieldset>
        <FormError error={save.error} inline={["name"]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {strategy ? "Save strategy type" : "Create strategy type"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
