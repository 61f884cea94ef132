import { Group, NumberInput, Select, Slider, Stack, Switch, TagsInput, Text, TextInput } from "@mantine/core";
import { useId } from "react";
import { pickHint } from "../../components/pick-hint";
import { stickinessOptions } from "../../variants/context-fields";
import { type StrategyDefinition, useContextFields } from "../queries";
import { parameterProblem } from "./strategy-draft";

type Parameters = Record<string, string>;
type Declared = StrategyDefinition["parameters"][number];

/** A percentage as a slider and a number, both named `label`: the slider for a quick pick, the number to be exact. */
export function PercentageField({
  label,
  description,
  value,
  onChange,
  error,
}: {
  label: string;
  description?: string;
  value: string;
  onChange: (next: string) => void;
  error?: string | undefined;
}) {
  const id = useId();
  const number = Number(value);
  const shown = value.trim() !== "" && Number.isFinite(number) ? Math.min(100, Math.max(0, number)) : 0;
  return (
    <Stack gap={4}>
      <Text component="label" htmlFor={id} size="sm" fw={500}>
        {label}
      </Text>
      {description && (
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      )}
      <Group align="center" wrap="nowrap">
        <Slider
          flex={1}
          min={0}
          max={100}
          step={1}
          value={shown}
          onChange={(next) => onChange(String(next))}
          thumbLabel={label}
          label={(next) => `${next}%`}
          marks={[0, 25, 50, 75, 100].map((mark) => ({ value: mark, label: `${mark}%` }))}
          mb="md"
        />
        <NumberInput
          id={id}
          w={110}
          min={0}
          max={100}
          clampBehavior="none"
          allowDecimal={false}
          suffix="%"
          value={value === "" ? "" : number}
          onChange={(next) => onChange(String(next))}
          error={error}
        />
      </Group>
    </Stack>
  );
}

/** A gradual rollout's own fields: how many, sticky on what, and in which group. */
export function GradualRolloutFields({
  declared,
  parameters,
  onChange,
  groupIdDescription = "Flags with the same group id put the same users in their rollout",
}: {
  declared: Declared[];
  parameters: Parameters;
  onChange: (next: Parameters) => void;
  groupIdDescription?: string | undefined;
}) {
  const fields = useContextFields();
  const problem = (name: string) => {
    const parameter = declared.find((candidate) => candidate.name === name);
    return parameter && parameterProblem(parameter, parameters[name]);
  };
  const stickiness = parameters.stickiness || "default";
  const set = (name: string, value: string) => onChange({ ...parameters, [name]: value });
  const rollout = parameters.rollout ?? "";
  return (
    <Stack gap="md">
      <PercentageField
        label="Rollout"
        description="The share of users, by their stickiness value, the strategy is on for"
        value={rollout}
        onChange={(next) => set("rollout", next)}
        error={problem("rollout")}
      />
      <Group grow align="flex-start">
        <Select
          label="Stickiness"
          description="What keeps a user in or out as the rollout grows: default is the user id, else the session id, else random"
          data={stickinessOptions(fields.data ?? [], stickiness)}
          value={stickiness}
          onChange={(next) => next && set("stickiness", next)}
          allowDeselect={false}
        />
        <TextInput
          label="Group id"
          description={groupIdDescription}
          value={parameters.groupId ?? ""}
          onChange={(event) => set("groupId", event.currentTarget.value)}
          error={problem("groupId")}
        />
      </Group>
    </Stack>
  );
}

/** Inputs for the parameters a strategy's definition declares, each by its type. */
export function DeclaredParameterFields({
  declared,
  parameters,
  onChange,
}: {
  declared: Declared[];
  parameters: Parameters;
  onChange: (next: Parameters) => void;
}) {
  if (declared.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        This strategy has no parameters.
      </Text>
    );
  }
  return (
    <Stack gap="md">
      {declared.map((parameter) => (
        <DeclaredParameterField
          key={parameter.name}
          parameter={parameter}
          value={parameters[parameter.name] ?? ""}
          onChange={(value) => onChange({ ...parameters, [parameter.name]: value })}
        />
      ))}
    </Stack>
  );
}

function DeclaredParameterField({
  parameter,
  value,
  onChange,
}: {
  parameter: Declared;
  value: string;
  onChange: (next: string) => void;
}) {
  const common = {
    label: parameter.name,
    description: parameter.description || undefined,
    required: parameter.required,
    error: parameterProblem(parameter, value),
  };
  switch (parameter.type) {
    case "percentage":
      return <PercentageField {...common} value={value} onChange={onChange} />;
    case "list": {
      // Lists travel as one comma-separated string, as the SDKs read them.
      const entries = value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      return (
        <TagsInput
          {...common}
          placeholder={pickHint(entries, "Type a value, then Enter")}
          value={entries}
          onChange={(next) => onChange(next.join(","))}
          clearable
        />
      );
    }
    case "boolean":
      return (
        <Switch
          label={parameter.name}
          description={common.description}
          checked={value === "true"}
          onChange={(event) => onChange(String(event.currentTarget.checked))}
        />
      );
    default:
      return (
        <TextInput
          {...common}
          inputMode={parameter.type === "number" ? "decimal" : undefined}
          value={value}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      );
  }
}
