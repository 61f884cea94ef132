import {
  Autocomplete,
  Button,
  Fieldset,
  Group,
  MultiSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { EditableList, RemoveRowButton } from "../components/editable-list";
import { pickHint } from "../components/pick-hint";
import { type ContextField, useContextFields } from "../flags/queries";
import { useProjects } from "../projects/projects-page";
import { useEnvironments } from "../projects/queries";
import {
  DEFAULT_APP_NAME,
  type PlaygroundInput,
  STANDARD_FIELDS,
  type StandardField,
} from "./playground-query";

const LABELS: Record<StandardField, string> = {
  appName: "App name",
  userId: "User ID",
  sessionId: "Session ID",
  remoteAddress: "Remote address",
  currentTime: "Current time",
};

// The deprecated `environment` field is the environment chosen above, not a property.
const NOT_PROPERTIES = new Set<string>([...STANDARD_FIELDS, "environment"]);

/** An ISO moment as a datetime-local input shows it, in the reader's time zone. */
const toLocalInput = (iso: string) => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
};

/**
 * What to evaluate: environments, projects and a context. Several values separated by
 * commas are each tried, as contexts of their own.
 */
export function ContextForm({
  initial,
  onEvaluate,
  evaluating,
}: {
  initial: PlaygroundInput;
  onEvaluate: (input: PlaygroundInput) => void;
  evaluating: boolean;
}) {
  const environments = useEnvironments();
  const projects = useProjects();
  const fields = useContextFields();
  const [input, setInput] = useState(initial);
  const [missingEnvironment, setMissingEnvironment] = useState(false);

  const environmentNames = (environments.data?.environments ?? [])
    .filter((environment) => environment.enabled)
    .map((environment) => environment.name);
  // A first visit starts in the first environment rather than with nothing to evaluate in.
  const firstEnvironment = environmentNames[0];
  const untouched = useRef(initial.environments.length === 0);
  useEffect(() => {
    if (untouched.current && firstEnvironment) {
      untouched.current = false;
      setInput((current) => ({ ...current, environments: [firstEnvironment] }));
    }
  }, [firstEnvironment]);

  const byName = new Map((fields.data ?? []).map((field) => [field.name, field]));
  const setContext = (field: StandardField, value: string) =>
    setInput((current) => ({ ...current, context: { ...current.context, [field]: value } }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.environments.length === 0) {
      setMissingEnvironment(true);
      return;
    }
    onEvaluate(input);
  };

  const used = new Set(input.properties.map((property) => property.name));
  const propertyNames = (fields.data ?? [])
    .map((field) => field.name)
    .filter((name) => !NOT_PROPERTIES.has(name) && !used.has(name));

  return (
    <form onSubmit={submit} aria-label="Playground">
      <Stack>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <MultiSelect
            label="Environments"
            placeholder={pickHint(input.environments, "Choose one or more")}
            data={environmentNames}
            value={input.environments}
            onChange={(value) => {
              untouched.current = false;
              setMissingEnvironment(false);
              setInput((current) => ({ ...current, environments: value }));
            }}
            error={missingEnvironment ? "Choose at least one environment." : undefined}
            searchable
          />
          <MultiSelect
            label="Projects"
            placeholder={pickHint(input.projects, "All projects")}
            data={(projects.data?.projects ?? []).map((project) => ({
              value: project.id,
              label: project.name,
            }))}
            value={input.projects}
            onChange={(value) => setInput((current) => ({ ...current, projects: value }))}
            searchable
            clearable
          />
        </SimpleGrid>
        <Fieldset legend="Context">
          <Stack>
            <Text size="xs" c="dimmed">
              Separate several values with commas to try each of them: every combination is evaluated.
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {(["appName", "userId", "sessionId", "remoteAddress"] as const).map((field) => (
                <ContextValue
                  key={field}
                  label={LABELS[field]}
                  field={byName.get(field)}
                  value={input.context[field]}
                  placeholder={field === "appName" ? DEFAULT_APP_NAME : undefined}
                  onChange={(value) => setContext(field, value)}
                />
              ))}
              <TextInput
                type="datetime-local"
                label={LABELS.currentTime}
                description="Left empty: now."
                value={input.context.currentTime ? toLocalInput(input.context.currentTime) : ""}
                onChange={(event) => {
                  const local = event.currentTarget.value;
                  setContext("currentTime", local ? new Date(local).toISOString() : "");
                }}
              />
            </SimpleGrid>
            <EditableList
              value={input.properties}
              onChange={(properties) => setInput((current) => ({ ...current, properties }))}
              newItem={() => ({ name: "", value: "" })}
              addLabel="Add context field"
            >
              {({ item: property, index, change, remove }) => {
                const name = property.name.trim();
                const rowLabel = name || `property ${index + 1}`;
                return (
                  <Group align="flex-end" wrap="nowrap">
                    <Autocomplete
                      label="Context field"
                      aria-label={`Context field ${index + 1}`}
                      data={propertyNames}
                      value={property.name}
                      onChange={(value) => change({ ...property, name: value })}
                      style={{ flex: 1 }}
                    />
                    <ContextValue
                      label="Value"
                      aria-label={`Value of ${rowLabel}`}
                      field={byName.get(name)}
                      value={property.value}
                      onChange={(value) => change({ ...property, value })}
                    />
                    <RemoveRowButton label={`Remove ${rowLabel}`} mb={4} onClick={remove} />
                  </Group>
                );
              }}
            </EditableList>
          </Stack>
        </Fieldset>
        <Group>
          <Button type="submit" loading={evaluating}>
            Evaluate
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A context value; where the field lists legal values, they are offered (others may still be typed). */
function ContextValue({
  label,
  field,
  value,
  onChange,
  placeholder,
  "aria-label": ariaLabel,
}: {
  label: string;
  field: ContextField | undefined;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string | undefined;
  "aria-label"?: string;
}) {
  const legal = field?.legalValues ?? [];
  if (legal.length === 0) {
    return (
      <TextInput
        label={label}
        aria-label={ariaLabel}
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        style={{ flex: 1 }}
      />
    );
  }
  return (
    <Autocomplete
      label={label}
      aria-label={ariaLabel}
      placeholder={placeholder}
      data={legal.map((legalValue) => legalValue.value)}
      value={value}
      onChange={onChange}
      style={{ flex: 1 }}
    />
  );
}
