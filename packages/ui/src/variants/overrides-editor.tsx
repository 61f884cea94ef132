import { Fieldset, Group, NativeSelect, TagsInput } from "@mantine/core";
import { EditableList, RemoveRowButton } from "../components/editable-list";
import { pickHint } from "../components/pick-hint";
import type { ContextField } from "./context-fields";
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
  return (
    <Fieldset variant="unstyled" legend="Overrides">
      <EditableList
        value={overrides}
        onChange={onChange}
        gap="xs"
        size="xs"
        newItem={() => ({ contextName: firstField(fields), values: [] })}
        addLabel="Add override"
      >
        {({ item: override, index, change, remove }) => {
          const known = fields.find((field) => field.name === override.contextName);
          const names = fields.map((field) => field.name);
          if (!known) names.unshift(override.contextName);
          const label = `Override ${index + 1}${override.contextName ? `: ${override.contextName}` : ""}`;
          return (
            <Group role="group" aria-label={label} align="flex-start" wrap="nowrap">
              <NativeSelect
                label="Context field"
                w={180}
                data={names.map((name) => ({ value: name, label: name || "Choose a field" }))}
                value={override.contextName}
                error={problems[index]}
                onChange={(event) => change({ ...override, contextName: event.currentTarget.value })}
              />
              <TagsInput
                label="Values"
                placeholder={pickHint(override.values, "Type a value, then Enter")}
                flex={1}
                data={known?.legalValues.map((legal) => legal.value) ?? []}
                value={override.values}
                clearable
                onChange={(values) => change({ ...override, values })}
              />
              <RemoveRowButton label={`Remove override ${index + 1}`} mt={26} onClick={remove} />
            </Group>
          );
        }}
      </EditableList>
    </Fieldset>
  );
}
