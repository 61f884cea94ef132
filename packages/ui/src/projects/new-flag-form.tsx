import { Checkbox, Radio, Stack } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api, unwrap } from "../api/client";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { describeFailure } from "../components/notify";
import { useFormSave } from "../components/use-form-save";
import { queryKeys } from "../query-keys";
import { FLAG_TYPES, type FlagType } from "./flag-kinds";
import { matchesPattern } from "./naming";
import { flagPath } from "./paths";
import type { Project } from "./queries";

/** Why a name does not fit the project's naming pattern, if it does not. */
function namingProblem(naming: Project["featureNaming"], name: string): string | undefined {
  if (!naming.pattern || !name || matchesPattern(naming.pattern, name) !== false) return undefined;
  return `Does not match the project's pattern ${naming.pattern}${naming.example ? `, for example ${naming.example}` : ""}.`;
}

export function NewFlagForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: "", type: "release" as FlagType, description: "", impressionData: false },
  });
  const name = form.values.name.trim();
  const [checkedName] = useDebouncedValue(name, 300);
  // Whether the name is free and well-formed, asked as the person types.
  const nameCheck = useQuery({
    queryKey: queryKeys.flags.nameCheck(checkedName),
    queryFn: () => unwrap(api.POST("/api/admin/features/validate", { body: { name: checkedName } })),
    enabled: checkedName !== "",
    retry: false,
    staleTime: 5_000,
  });
  const { mutation: create, submit } = useFormSave(form, {
    save: ({ type, description, impressionData }) =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/features", {
          params: { path: { projectId: project.id } },
          body: { name, type, description: description || null, impressionData },
        }),
      ),
    onSaved: async (flag) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.projects.detail(project.id) }),
        client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
      ]);
      onDone();
      navigate(flagPath(project.id, flag.name));
    },
  });
  const patternProblem = namingProblem(project.featureNaming, name);
  const nameInput = form.getInputProps("name");
  const nameError =
    patternProblem ??
    (checkedName === name && nameCheck.isError ? describeFailure(nameCheck.error) : undefined) ??
    nameInput.error;
  const naming = project.featureNaming;

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField
          data-autofocus
          {...nameInput}
          error={nameError}
          description={
            naming.pattern
              ? [
                  `Must match ${naming.pattern}`,
                  naming.example && `for example ${naming.example}`,
                  naming.description,
                ]
                  .filter(Boolean)
                  .join(" · ")
              : "Letters, digits and - _ . ~ ! * ' ( ); unique across all projects."
          }
        />
        <Radio.Group
          label="Type"
          description="What the flag is for; it decides when it counts as stale."
          {...form.getInputProps("type")}
        >
          <Stack gap="xs" mt="xs">
            {FLAG_TYPES.map((option) => (
              <Radio
                key={option.value}
                value={option.value}
                label={option.label}
                description={option.description}
              />
            ))}
          </Stack>
        </Radio.Group>
        <DescriptionField {...form.getInputProps("description")} />
        <Checkbox
          label="Impression data"
          description="SDKs emit an impression event each time they evaluate the flag."
          {...form.getInputProps("impressionData", { type: "checkbox" })}
        />
        <FormError error={create.error} inline={["name"]} />
        <FormActions
          submitLabel="Create flag"
          saving={create.isPending}
          onCancel={onDone}
          disabled={!name || patternProblem !== undefined}
        />
      </Stack>
    </form>
  );
}
