import {
  Autocomplete,
  Checkbox,
  Fieldset,
  Group,
  MultiSelect,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from "@mantine/core";
import { useState } from "react";
import { EditableList, RemoveRowButton } from "../../components/editable-list";
import { pickHint } from "../../components/pick-hint";
import { type ContextField, useContextFields } from "../queries";
import {
  type Constraint,
  constraintProblem,
  describeConstraint,
  isOperator,
  newConstraint,
  operatorGroups,
  operatorLabel,
  takesCaseInsensitive,
  takesInverted,
  takesList,
  valueKind,
  withContextName,
  withOperator,
} from "./operators";

interface Props {
  value: Constraint[];
  onChange: (next: Constraint[]) => void;
}

/**
 * Constraints on the context, all of which must hold: for a strategy or a segment. Each
 * offers the operators its field's values can meet and the legal values the field lists;
 * what cannot be sent is said next to the field it concerns.
 */
export function ConstraintsEditor({ value, onChange }: Props) {
  const fields = useContextFields();
  const known = fields.data ?? [];
  return (
    <EditableList
      value={value}
      onChange={onChange}
      newItem={() => newConstraint(known[0]?.name ?? "userId")}
      addLabel="Add constraint"
      empty="No constraints."
    >
      {({ item, index, change, remove }) => (
        <ConstraintRow
          number={index + 1}
          constraint={item}
          fields={known}
          onChange={change}
          onRemove={remove}
        />
      )}
    </EditableList>
  );
}

function ConstraintRow({
  number,
  constraint,
  fields,
  onChange,
  onRemove,
}: {
  number: number;
  constraint: Constraint;
  fields: ContextField[];
  onChange: (next: Constraint) => void;
  onRemove: () => void;
}) {
  const { contextName, operator } = constraint;
  const field = fields.find((candidate) => candidate.name === contextName);
  const fieldNames = fields.map((candidate) => candidate.name);
  // A field since deleted still reads, and can be changed to another.
  if (contextName && !fieldNames.includes(contextName)) fieldNames.push(contextName);

  const option = (name: string) => ({ value: name, label: `${operatorLabel(name)} (${name})` });
  const groups = operatorGroups(contextName).map(({ group, operators }) => ({
    group,
    items: operators.map(option),
  }));
  if (!groups.some((group) => group.items.some((item) => item.value === operator))) {
    groups.push({ group: "In use", items: [option(operator)] });
  }

  return (
    <Fieldset legend={`Constraint ${number}`} variant="filled">
      <Stack gap="xs">
        <Group align="flex-end" gap="sm">
          <Select
            label="Context field"
            data={fieldNames}
            value={contextName || null}
            onChange={(name) => name && onChange(withContextName(constraint, name))}
            allowDeselect={false}
            searchable
            w={200}
          />
          <Select
            label="Operator"
            data={groups}
            value={operator}
            onChange={(name) => name && isOperator(name) && onChange(withOperator(constraint, name))}
            allowDeselect={false}
            w={300}
          />
          <RemoveRowButton label={`Remove constraint ${number}`} onClick={onRemove} />
        </Group>
        <ValuesInput constraint={constraint} field={field} onChange={onChange} />
        <Group gap="lg">
          {takesInverted(operator) && (
            <Checkbox
              label="Inverted (NOT)"
              description="Holds when the condition does not"
              checked={constraint.inverted === true}
              onChange={(event) => onChange(flagged(constraint, "inverted", event.currentTarget.checked))}
            />
          )}
          {takesCaseInsensitive(operator) && (
            <Checkbox
              label="Case insensitive"
              checked={constraint.caseInsensitive === true}
              onChange={(event) =>
                onChange(flagged(constraint, "caseInsensitive", event.currentTarget.checked))
              }
            />
          )}
        </Group>
        <Text size="sm" c="dimmed">
          {describeConstraint(constraint)}
        </Text>
      </Stack>
    </Fieldset>
  );
}

// A flag that is off is left out, as the service stores it.
function flagged(constraint: Constraint, name: "inverted" | "caseInsensitive", on: boolean): Constraint {
  const { [name]: _, ...rest } = constraint;
  return on ? { ...rest, [name]: true } : rest;
}

function ValuesInput({
  constraint,
  field,
  onChange,
}: {
  constraint: Constraint;
  field: ContextField | undefined;
  onChange: (next: Constraint) => void;
}) {
  // An empty value is only worth pointing out once the person has moved on from it.
  const [touched, setTouched] = useState(false);
  const problem = constraintProblem(constraint);
  const entered = takesList(constraint.operator)
    ? (constraint.values?.length ?? 0) > 0
    : (constraint.value ?? "") !== "";
  const error = (touched || entered) && problem;
  const legal = field?.legalValues ?? [];
  const common = { error, onBlur: () => setTouched(true) };

  if (takesList(constraint.operator)) {
    const values = constraint.values ?? [];
    const setValues = (next: string[]) => onChange({ ...constraint, values: next });
    if (valueKind(constraint.operator) === "list" && legal.length > 0) {
      const data = legal.map((legalValue) => ({
        value: legalValue.value,
        label: legalValue.description ? `${legalValue.value} – ${legalValue.description}` : legalValue.value,
      }));
      // Values since removed from the field's list still show, so they can be taken out.
      for (const stale of values)
        if (!legal.some((l) => l.value === stale)) data.push({ value: stale, label: stale });
      return (
        <MultiSelect
          label="Values"
          description={`Legal values of ${constraint.contextName}`}
          placeholder={pickHint(values, "Pick values")}
          data={data}
          value={values}
          onChange={setValues}
          searchable
          {...common}
        />
      );
    }
    return (
      <TagsInput
        label="Values"
        description="Enter or paste values; Enter or a comma ends each one"
        placeholder={pickHint(values, "Type a value, then Enter")}
        data={legal.map((legalValue) => legalValue.value)}
        value={values}
        onChange={setValues}
        clearable
        {...common}
      />
    );
  }

  const value = constraint.value ?? "";
  const setValue = (next: string) => onChange({ ...constraint, value: next });
  const kind = valueKind(constraint.operator);
  if (kind === "date") {
    return (
      <TextInput
        type="datetime-local"
        label="Date and time"
        description={`In your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}); stored in UTC`}
        value={toLocalInput(value)}
        onChange={(event) => setValue(fromLocalInput(event.currentTarget.value))}
        {...common}
      />
    );
  }
  const placeholder =
    kind === "number" ? "42" : kind === "semver" ? "1.2.3" : kind === "regex" ? "^beta-" : "";
  if (legal.length > 0) {
    return (
      <Autocomplete
        label="Value"
        data={legal.map((legalValue) => legalValue.value)}
        value={value}
        onChange={setValue}
        placeholder={placeholder}
        {...common}
      />
    );
  }
  return (
    <TextInput
      label="Value"
      value={value}
      onChange={(event) => setValue(event.currentTarget.value)}
      placeholder={placeholder}
      inputMode={kind === "number" ? "decimal" : undefined}
      {...common}
    />
  );
}

const pad = (n: number) => String(n).padStart(2, "0");

/** An ISO instant as a datetime-local input shows it: the person's own clock, to the minute. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function fromLocalInput(local: string): string {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}
