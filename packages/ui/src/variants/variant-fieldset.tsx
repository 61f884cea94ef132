import { Fieldset, Group, NativeSelect, NumberInput, Stack, TextInput } from "@mantine/core";
import { useState } from "react";
import { RemoveRowButton } from "../components/editable-list";
import type { ContextField } from "./context-fields";
import { OverridesEditor } from "./overrides-editor";
import { PayloadEditor } from "./payload-editor";
import type { VariantProblems } from "./problems";
import { type Variant, variantLabel } from "./variant";
import { toPercent, toWeight } from "./weights";

const WEIGHT_TYPES = [
  { value: "variable", label: "Variable" },
  { value: "fix", label: "Fixed" },
];

/**
 * A fixed weight as typed: kept as text while it still means the variant's weight, so a
 * half-typed "12." is not rewritten to "12" under the cursor.
 */
function FixedWeightInput({
  weight,
  overweight,
  onChange,
}: {
  weight: number;
  overweight: boolean;
  onChange: (weight: number) => void;
}) {
  const [typed, setTyped] = useState<string | number>(toPercent(weight));
  const means = (text: string | number) => (text === "" ? 0 : toWeight(Number(text)));
  return (
    <NumberInput
      label="Weight (%)"
      description="A fixed share"
      w={130}
      min={0}
      max={100}
      step={0.1}
      decimalScale={1}
      clampBehavior="strict"
      allowNegative={false}
      value={means(typed) === weight ? typed : toPercent(weight)}
      error={overweight}
      onChange={(text) => {
        setTyped(text);
        onChange(means(text));
      }}
    />
  );
}

/** One variant: its name, weight, payload and, for a flag, its overrides. */
export function VariantFieldset({
  index,
  variant,
  problems,
  overweight,
  withOverrides,
  fields,
  onChange,
  onRemove,
}: {
  index: number;
  /** With its weight settled, so a variable one shows its share. */
  variant: Variant;
  problems: VariantProblems;
  /** The fixed weights together exceed 100 %. */
  overweight: boolean;
  withOverrides: boolean;
  fields: readonly ContextField[];
  onChange: (next: Variant) => void;
  onRemove: () => void;
}) {
  const [nameTouched, setNameTouched] = useState(false);
  const label = variantLabel(variant, index);
  const fixed = variant.weightType === "fix";

  return (
    <Fieldset legend={label}>
      <Stack gap="sm">
        <Group align="flex-start" wrap="nowrap">
          <TextInput
            label="Variant name"
            required
            flex={1}
            maxLength={255}
            value={variant.name}
            error={(nameTouched || variant.name !== "") && problems.name}
            onBlur={() => setNameTouched(true)}
            onChange={(event) => onChange({ ...variant, name: event.currentTarget.value })}
          />
          <NativeSelect
            label="Weight type"
            w={130}
            data={WEIGHT_TYPES}
            value={variant.weightType}
            onChange={(event) =>
              onChange({ ...variant, weightType: event.currentTarget.value === "fix" ? "fix" : "variable" })
            }
          />
          {fixed ? (
            <FixedWeightInput
              weight={variant.weight}
              overweight={overweight}
              onChange={(weight) => onChange({ ...variant, weight })}
            />
          ) : (
            <NumberInput
              label="Weight (%)"
              description="An equal share"
              w={130}
              readOnly
              variant="filled"
              hideControls
              value={toPercent(variant.weight)}
            />
          )}
          <RemoveRowButton label={`Remove ${label}`} mt={26} onClick={onRemove} />
        </Group>
        <PayloadEditor
          payload={variant.payload}
          onChange={(payload) => {
            const { payload: _, ...rest } = variant;
            onChange(payload ? { ...rest, payload } : rest);
          }}
        />
        {withOverrides && (
          <OverridesEditor
            overrides={variant.overrides ?? []}
            problems={problems.overrides}
            fields={fields}
            onChange={(overrides) => onChange({ ...variant, overrides })}
          />
        )}
      </Stack>
    </Fieldset>
  );
}
