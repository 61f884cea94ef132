import {
  Alert,
  Anchor,
  Box,
  Button,
  Fieldset,
  Group,
  MultiSelect,
  PasswordInput,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { ApiError, api, unwrap } from "../api/client";
import { FormError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import { pickHint } from "../components/pick-hint";
import { anchor } from "../guides/markdown";
import { useProjects } from "../projects/projects-page";
import { useEnvironments } from "../projects/queries";
import {
  destinationChanged,
  initialParameters,
  isDestination,
  keepsStored,
  MASK,
  type ParameterValues,
  parameterProblems,
  parametersToSend,
} from "./parameters";
import { type Addon, addonsKey, type ParameterDefinition, type Provider } from "./queries";

/**
 * What typing into a field that holds the mask means: the mask stands for the stored value,
 * so a character typed before or after it starts a new value, and deleting any of it clears
 * the field; text typed over it (it is selected on focus) or pasted replaces it. The mask is
 * never sent with something stuck to it.
 */
export function replaceMask(previous: string, next: string): string {
  if (previous !== MASK || next === MASK) return next;
  if (next.startsWith(MASK)) return next.slice(MASK.length);
  if (next.endsWith(MASK)) return next.slice(0, -MASK.length);
  // Part of the mask deleted: the stored value is dropped, nothing is kept of the stars.
  return /^\**$/.test(next) ? "" : next;
}

/** The service's word on one parameter (`parameters.url`), when it named it. */
function serviceSaid(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const said = error.details
    .filter(
      (detail) => detail.path?.replace(/^\/?(body[./])?/, "").replaceAll("/", ".") === `parameters.${name}`,
    )
    .map((detail) => detail.message);
  return said.length > 0 ? said.join(" ") : undefined;
}

function ParameterField({
  definition,
  value,
  stored,
  secretsStored,
  moved,
  error,
  onChange,
  inputRef,
}: {
  definition: ParameterDefinition;
  value: string;
  stored: boolean;
  /** Whether the addon holds stored secrets, which a new destination drops. */
  secretsStored: boolean;
  /** Whether the destination changed, so that no stored secret is kept. */
  moved: boolean;
  error: string | undefined;
  onChange: (value: string) => void;
  inputRef: (element: HTMLElement | null) => void;
}) {
  const kept = keepsStored(definition, value);
  const dropped = kept && moved;
  const description = [
    definition.description,
    isDestination(definition) &&
      secretsStored &&
      "Changing it clears the stored hidden values unless you enter them again: they are never sent to a new destination.",
    definition.sensitive &&
      (stored
        ? dropped
          ? "The destination changed: enter it again, or it is cleared when saved."
          : kept
            ? "Stored and hidden: left as it is, the stored value is kept; type to replace it."
            : "Replaces the stored value when saved."
        : "Hidden once saved."),
  ]
    .filter(Boolean)
    .join(" ");
  const common = {
    label: definition.displayName,
    description: description || undefined,
    placeholder: definition.placeholder,
    required: definition.required,
    error,
    // A mask the new destination drops shows as the empty field it will be.
    value: dropped ? "" : value,
    ref: inputRef,
  };
  // Typing into a stored value's mask replaces it, as `replaceMask` reads it.
  const masked = {
    onFocus: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      kept && !dropped && event.currentTarget.select(),
    onChange: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      onChange(
        definition.sensitive ? replaceMask(value, event.currentTarget.value) : event.currentTarget.value,
      ),
  };
  if (definition.type === "textfield")
    return (
      <Textarea
        {...common}
        {...masked}
        autosize
        minRows={definition.name === "bodyTemplate" ? 4 : 2}
        styles={{ input: { fontFamily: "monospace" } }}
      />
    );
  // A URL is typed where it can be read, even one kept hidden once saved (a Slack webhook's
  // carries its secret): a mistyped address is the commonest reason an integration is refused.
  if (definition.sensitive && definition.type !== "url")
    return (
      <PasswordInput
        {...common}
        {...masked}
        autoComplete="off"
        // Mantine marks a PasswordInput invalid for its styles only.
        aria-invalid={error ? true : undefined}
      />
    );
  return <TextInput {...common} {...masked} type={definition.type === "url" ? "url" : "text"} />;
}

/**
 * Creates an addon of a provider, or changes one: its fields are the provider's parameter
 * definitions (required ones marked, sensitive ones hidden and kept as the service's mask
 * until something new is typed or the destination changes), the events it sends, and the
 * projects and environments it is limited to.
 */
export function AddonForm({
  provider,
  addon,
  onDone,
}: {
  provider: Provider;
  addon: Addon | undefined;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const projects = useProjects();
  const environments = useEnvironments();
  const [description, setDescription] = useState(addon?.description ?? "");
  const [enabled, setEnabled] = useState(addon?.enabled ?? true);
  const [stored] = useState<ParameterValues>(() => initialParameters(provider, addon));
  const [values, setValues] = useState<ParameterValues>(stored);
  const [events, setEvents] = useState<string[]>(addon?.events ?? []);
  const [projectIds, setProjectIds] = useState<string[]>(addon?.projects.filter((p) => p !== "*") ?? []);
  const [environmentNames, setEnvironmentNames] = useState<string[]>(
    addon?.environments.filter((e) => e !== "*") ?? [],
  );
  const [tried, setTried] = useState(false);
  // Each field by its parameter's name (`events` for the events), to take the person to one refused.
  const fields = useRef(new Map<string, HTMLElement>());
  const fieldRef = (name: string) => (element: HTMLElement | null) => {
    if (element) fields.current.set(name, element);
    else fields.current.delete(name);
  };
  // Focusing scrolls the dialog to the field; the reason stays in sight beside the buttons.
  const focusField = (name: string | undefined) => name && fields.current.get(name)?.focus();

  const moved = addon !== undefined && destinationChanged(provider, stored, values);
  const secretsStored = provider.parameters.some(
    (definition) => !isDestination(definition) && keepsStored(definition, stored[definition.name] ?? ""),
  );
  const problems = parameterProblems(provider, values, moved);
  const eventsProblem = events.length === 0 ? "Choose at least one event to send." : undefined;
  const unfinished = [
    ...provider.parameters.filter((definition) => problems[definition.name]),
    ...(eventsProblem ? [{ name: "events", displayName: "Events" }] : []),
  ];
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
      const body = {
        provider: provider.name,
        enabled,
        description: description.trim() || null,
        parameters: parametersToSend(provider, values, moved),
        events,
        projects: projectIds,
        environments: environmentNames,
      };
      if (addon)
        await unwrap(api.PUT("/api/admin/addons/{id}", { params: { path: { id: addon.id } }, body }));
      else await unwrap(api.POST("/api/admin/addons", { body }));
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: addonsKey });
      notifyDone(
        addon ? `${provider.displayName} integration saved.` : `${provider.displayName} integration created.`,
      );
      onDone();
    },
    onError: (error) =>
      focusField(provider.parameters.find((definition) => serviceSaid(error, definition.name))?.name),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (unfinished.length === 0) save.mutate();
    else focusField(unfinished[0]?.name);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm" c="dimmed">
          {provider.description}{" "}
          {/* Signalbox's own guide, in a new tab so that the form keeps what was typed. */}
          <Anchor
            href={`/guides/integrations#${anchor(provider.displayName)}`}
            target="_blank"
            rel="noreferrer"
          >
            Documentation
          </Anchor>
        </Text>
        <Switch
          label="Enabled"
          description="A disabled integration keeps its settings and sends nothing."
          checked={enabled}
          onChange={(event) => setEnabled(event.currentTarget.checked)}
        />
        <Textarea
          label="Description"
          autosize
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Fieldset legend="Parameters">
          <Stack>
            {provider.parameters.map((definition) => (
              <ParameterField
                key={definition.name}
                definition={definition}
                value={values[definition.name] ?? ""}
                stored={addon?.parameters[definition.name] !== undefined}
                secretsStored={secretsStored}
                moved={moved}
                inputRef={fieldRef(definition.name)}
                error={
                  (tried ? problems[definition.name] : undefined) ?? serviceSaid(save.error, definition.name)
                }
                onChange={(value) => setValues((current) => ({ ...current, [definition.name]: value }))}
              />
            ))}
          </Stack>
        </Fieldset>
        <Fieldset legend="What it sends">
          <Stack>
            <MultiSelect
              label="Events"
              description="The events this integration sends."
              placeholder={pickHint(events, "Pick events")}
              ref={fieldRef("events")}
              required
              searchable
              clearable
              data={provider.events}
              value={events}
              onChange={setEvents}
              error={tried ? eventsProblem : undefined}
              maxDropdownHeight={260}
            />
            <Group gap="xs">
              <Button variant="subtle" size="compact-sm" onClick={() => setEvents(provider.events)}>
                Select all events
              </Button>
              <Button variant="subtle" size="compact-sm" onClick={() => setEvents([])}>
                Clear events
              </Button>
            </Group>
            <MultiSelect
              label="Projects"
              description="Only events of these projects. Empty: every project."
              placeholder={pickHint(projectIds, "All projects")}
              searchable
              clearable
              data={(projects.data?.projects ?? []).map((project) => ({
                value: project.id,
                label: project.name,
              }))}
              value={projectIds}
              onChange={setProjectIds}
            />
            <MultiSelect
              label="Environments"
              description="Only events of these environments. Empty: every environment."
              placeholder={pickHint(environmentNames, "All environments")}
              searchable
              clearable
              data={(environments.data?.environments ?? []).map((environment) => environment.name)}
              value={environmentNames}
              onChange={setEnvironmentNames}
            />
          </Stack>
        </Fieldset>
      </Stack>
      {/* Kept at the bottom of the dialog while its fields scroll: why the form was not saved
          shows beside the button that was pressed, wherever the field at fault is. */}
      <Box pos="sticky" bottom={0} pt="md" pb="xs" bg="var(--mantine-color-body)" style={{ zIndex: 1 }}>
        <Stack gap="sm">
          {tried && unfinished.length > 0 ? (
            <Alert color="red" role="alert" title="Not saved">
              Fix the fields marked in red: {unfinished.map((field) => field.displayName).join(", ")}.
            </Alert>
          ) : (
            <FormError error={save.error} />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {addon ? "Save integration" : "Create integration"}
            </Button>
          </Group>
        </Stack>
      </Box>
    </form>
  );
}
