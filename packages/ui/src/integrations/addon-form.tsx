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
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useRef, useState } from "react";
import { api, unwrap } from "../api/client";
import { FormError, fieldErrors } from "../components/form-error";
import { DescriptionField, FormActions } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { pickHint } from "../components/pick-hint";
import { useCheckedForm } from "../components/use-checked-form";
import { useFormSave } from "../components/use-form-save";
import { anchor } from "../guides/markdown";
import { useProjects } from "../projects/projects-page";
import { useEnvironments } from "../projects/queries";
import { queryKeys } from "../query-keys";
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
import type { Addon, ParameterDefinition, Provider } from "./queries";

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
  error: ReactNode;
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
  const [stored] = useState<ParameterValues>(() => initialParameters(provider, addon));
  const secretsStored = provider.parameters.some(
    (definition) => !isDestination(definition) && keepsStored(definition, stored[definition.name] ?? ""),
  );
  const movedFrom = (values: ParameterValues) =>
    addon !== undefined && destinationChanged(provider, stored, values);
  // What keeps it from being sent, by the field at fault: `parameters.<name>`, or `events`.
  const problemsOf = (values: { parameters: ParameterValues; events: string[] }): Record<string, string> => ({
    ...Object.fromEntries(
      Object.entries(parameterProblems(provider, values.parameters, movedFrom(values.parameters))).map(
        ([name, problem]) => [`parameters.${name}`, problem],
      ),
    ),
    ...(values.events.length === 0 ? { events: "Choose at least one event to send." } : {}),
  });
  const form = useCheckedForm({
    initialValues: {
      description: addon?.description ?? "",
      enabled: addon?.enabled ?? true,
      parameters: stored,
      events: addon?.events ?? [],
      projects: addon?.projects.filter((p) => p !== "*") ?? [],
      environments: addon?.environments.filter((e) => e !== "*") ?? [],
    },
    validate: problemsOf,
  });
  const { values } = form;
  // Each field by its path in the form, to take the person to one refused.
  const fields = useRef(new Map<string, HTMLElement>());
  const fieldRef = (path: string) => (element: HTMLElement | null) => {
    if (element) fields.current.set(path, element);
    else fields.current.delete(path);
  };
  // Focusing scrolls the dialog to the field; the reason stays in sight beside the buttons.
  const focusField = (path: string | undefined) => path && fields.current.get(path)?.focus();
  // In the order the fields are shown.
  const paths = [...provider.parameters.map((definition) => `parameters.${definition.name}`), "events"];
  const firstAt = (errors: object) => paths.find((path) => Object.hasOwn(errors, path));

  const moved = movedFrom(values.parameters);
  const problems = problemsOf(values);
  const unfinished = [
    ...provider.parameters.filter((definition) => problems[`parameters.${definition.name}`]),
    ...(problems.events ? [{ name: "events", displayName: "Events" }] : []),
  ];
  const { mutation: save, submit } = useFormSave(form, {
    save: async (values) => {
      const body = {
        provider: provider.name,
        enabled: values.enabled,
        description: values.description.trim() || null,
        parameters: parametersToSend(provider, values.parameters, movedFrom(values.parameters)),
        events: values.events,
        projects: values.projects,
        environments: values.environments,
      };
      if (addon)
        await unwrap(api.PUT("/api/admin/addons/{id}", { params: { path: { id: addon.id } }, body }));
      else await unwrap(api.POST("/api/admin/addons", { body }));
    },
    onSaved: async () => {
      await client.invalidateQueries({ queryKey: queryKeys.addons.list() });
      notifyDone(
        addon ? `${provider.displayName} integration saved.` : `${provider.displayName} integration created.`,
      );
      onDone();
    },
    onRefused: (error) => focusField(firstAt(fieldErrors(error))),
    onInvalid: (errors) => focusField(firstAt(errors)),
  });

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
          {...form.getInputProps("enabled", { type: "checkbox" })}
        />
        <DescriptionField {...form.getInputProps("description")} />
        <Fieldset legend="Parameters">
          <Stack>
            {provider.parameters.map((definition) => (
              <ParameterField
                key={definition.name}
                definition={definition}
                value={values.parameters[definition.name] ?? ""}
                stored={addon?.parameters[definition.name] !== undefined}
                secretsStored={secretsStored}
                moved={moved}
                inputRef={fieldRef(`parameters.${definition.name}`)}
                error={form.errors[`parameters.${definition.name}`]}
                onChange={(value) => form.setFieldValue(`parameters.${definition.name}`, value)}
              />
            ))}
          </Stack>
        </Fieldset>
        <Fieldset legend="What it sends">
          <Stack>
            <MultiSelect
              label="Events"
              description="The events this integration sends."
              placeholder={pickHint(values.events, "Pick events")}
              ref={fieldRef("events")}
              required
              searchable
              clearable
              data={provider.events}
              maxDropdownHeight={260}
              {...form.getInputProps("events")}
            />
            <Group gap="xs">
              <Button
                variant="subtle"
                size="compact-sm"
                onClick={() => form.setFieldValue("events", provider.events)}
              >
                Select all events
              </Button>
              <Button variant="subtle" size="compact-sm" onClick={() => form.setFieldValue("events", [])}>
                Clear events
              </Button>
            </Group>
            <MultiSelect
              label="Projects"
              description="Only events of these projects. Empty: every project."
              placeholder={pickHint(values.projects, "All projects")}
              searchable
              clearable
              data={(projects.data?.projects ?? []).map((project) => ({
                value: project.id,
                label: project.name,
              }))}
              {...form.getInputProps("projects")}
            />
            <MultiSelect
              label="Environments"
              description="Only events of these environments. Empty: every environment."
              placeholder={pickHint(values.environments, "All environments")}
              searchable
              clearable
              data={(environments.data?.environments ?? []).map((environment) => environment.name)}
              {...form.getInputProps("environments")}
            />
          </Stack>
        </Fieldset>
      </Stack>
      {/* Kept at the bottom of the dialog while its fields scroll: why the form was not saved
          shows beside the button that was pressed, wherever the field at fault is. */}
      <Box pos="sticky" bottom={0} pt="md" pb="xs" bg="var(--mantine-color-body)" style={{ zIndex: 1 }}>
        <Stack gap="sm">
          {form.refused && unfinished.length > 0 ? (
            <Alert color="red" role="alert" title="Not saved">
              Fix the fields marked in red: {unfinished.map((field) => field.displayName).join(", ")}.
            </Alert>
          ) : (
            <FormError error={save.error} />
          )}
          <FormActions
            submitLabel={addon ? "Save integration" : "Create integration"}
            saving={save.isPending}
            onCancel={onDone}
          />
        </Stack>
      </Box>
    </form>
  );
}
