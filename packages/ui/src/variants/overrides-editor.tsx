import { ActionIcon, Button, Fieldset, Group, NativeSelect, Stack, TagsInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { pickHint } from "../components/pick-hint";
import type { ContextField } from "./context-fields";
import { useRowKeys } from "./row-keys";
import type { Override } from "./variant";

/** The field a new override starts on: the reference's usual pick, when it exists. */
const firstField = (fields: readonly ContextField[]) =>
  fields.find((field) => field.name === "userId")?.name ?? fields[0]?.name ?? "";

/** Overrides of a flag variant: users matching a context field's values get this variant whatever the weights. */
export function OverridesEditor({
  overrides,
  problems,
  fields,
  onChange,
}: {
  overrides: Override[];
  problems: (string | undefined)[];
  fields: readonly ContextField[];
  onChange: (next: Override[]) => void;
}) {
  const { keys, forget } = useRowKeys(overrides.length);
  const replace = (index: number, override: Override) =>
    onChange(overrides.map((old, at) => (at === index ? override : old)));

  return (
    <Fieldset variant="unstyled" legend="Overrides">
      <Stack gap="xs">
        {overrides.map((override, index) => {
          const known = fields.find((field) => field.name === override.contextName);
          const names = fields.map((field) => field.name);
          if (!known) names.unshift(override.contextName);
          const label = `Override ${index + 1}${override.contextName ? `: ${override.contextName}` : ""}`;
          return (
            <Group key={keys[index]} role="group" aria-label={label} align="flex-start" wrap="nowrap">
              <NativeSelect
                label="Context field"
                w={180}
                data={names.map((name) => ({ value: name, label: name || "Choose a field" }))}
                value={override.contextName}
                error={problems[index]}
                onChange={(event) => replace(index, { ...override, contextName: event.currentTarget.value })}
              />
              <TagsInput
                label="Values"
                placeholder={pickHint(override.values, "Type a value, then Enter")}
                flex={1}
                data={known?.legalValues.map((legal) => legal.value) ?? []}
                value={override.values}
                clearable
                onChange={(values) => replace(index, { ...override, values })}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                mt={26}
                aria-label={`Remove override ${index + 1}`}
                title="Remove override"
                onClick={() => {
                  forget(index);
                  onChange(overrides.filter((_, at) => at !== index));
                }}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          );
        })}
        <Group>
          <Button
            variant="subtle"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...overrides, { contextName: firstField(fields), values: [] }])}
          >
            Add override
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
