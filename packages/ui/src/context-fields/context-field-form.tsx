import { ActionIcon, Button, Fieldset, Group, Stack, Switch, Text, Textarea, TextInput } from "@mantine/core";
import { IconTrash } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import type { ContextField } from "../flags/queries";

type LegalValue = ContextField["legalValues"][number];

/** Creates a context field, or changes one: its description, stickiness and legal values, saved together. */
export function ContextFieldForm({ field, onDone }: { field: ContextField | undefined; onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(field?.name ?? "");
  const [description, setDescription] = useState(field?.description ?? "");
  const [stickiness, setStickiness] = useState(field?.stickiness ?? false);
  const [legalValues, setLegalValues] = useState<LegalValue[]>(field?.legalValues ?? []);
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
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
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["context-fields"] });
      notifyDone(field ? `Context field ${name} saved.` : `Context field ${name} created.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const change = (index: number, patch: Partial<LegalValue>) =>
    setLegalValues((values) => values.map((legal, at) => (at === index ? { ...legal, ...patch } : legal)));

  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          description={
            field ? "A context field keeps its name." : "As SDKs send it in the context, e.g. region."
          }
          required
          disabled={field !== undefined}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Switch
          label="Stickiness"
          description="Offer this field to keep gradual rollouts and variants stable for whoever shares its value."
          checked={stickiness}
          onChange={(event) => setStickiness(event.currentTarget.checked)}
        />
        <Fieldset legend="Legal values">
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              With legal values, constraints on this field choose from them; without, any value can be typed.
            </Text>
            {legalValues.map((legal, index) => (
              // Values are edited in place, so their position is what identifies them here.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <Group key={index} align="flex-end" wrap="nowrap">
                <TextInput
                  label={`Value ${index + 1}`}
                  required
                  maxLength={100}
                  value={legal.value}
                  onChange={(event) => change(index, { value: event.currentTarget.value })}
                  flex={1}
                />
                <TextInput
                  label={`Description of value ${index + 1}`}
                  value={legal.description ?? ""}
                  onChange={(event) => change(index, { description: event.currentTarget.value })}
                  flex={2}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="lg"
                  mb={2}
                  aria-label={`Remove value ${index + 1}`}
                  onClick={() => setLegalValues((values) => values.filter((_, at) => at !== index))}
                >
                  <IconTrash size={18} />
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button
                variant="light"
                size="compact-sm"
                onClick={() => setLegalValues((values) => [...values, { value: "" }])}
              >
                Add legal value
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
            {field ? "Save context field" : "Create context field"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
