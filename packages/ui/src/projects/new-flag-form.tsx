import { Button, Checkbox, Group, Radio, Stack, Textarea, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { api, unwrap } from "../api/client";
import { FormError, fieldError } from "../components/form-error";
import { describeFailure } from "../components/notify";
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
  const [name, setName] = useState("");
  const [type, setType] = useState<FlagType>("release");
  const [description, setDescription] = useState("");
  const [impressionData, setImpressionData] = useState(false);
  const [checkedName] = useDebouncedValue(name.trim(), 300);
  // Whether the name is free and well-formed, asked as the person types.
  const nameCheck = useQuery({
    queryKey: ["flag-name", checkedName],
    queryFn: () => unwrap(api.POST("/api/admin/features/validate", { body: { name: checkedName } })),
    enabled: checkedName !== "",
    retry: false,
    staleTime: 5_000,
  });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/features", {
          params: { path: { projectId: project.id } },
          body: { name: name.trim(), type, description: description || null, impressionData },
        }),
      ),
    meta: { quiet: true },
    onSuccess: async (flag) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: ["project", project.id] }),
        client.invalidateQueries({ queryKey: ["projects"] }),
      ]);
      onDone();
      navigate(flagPath(project.id, flag.name));
    },
  });
  const patternProblem = namingProblem(project.featureNaming, name.trim());
  const nameError =
    patternProblem ??
    (checkedName === name.trim() && nameCheck.isError ? describeFailure(nameCheck.error) : undefined) ??
    fieldError(create.error, "name");
  const naming = project.featureNaming;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          required
          data-autofocus
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
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
          value={type}
          onChange={(value) => setType(value as FlagType)}
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
        <Textarea
          label="Description"
          autosize
          minRows={2}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Checkbox
          label="Impression data"
          description="SDKs emit an impression event each time they evaluate the flag."
          checked={impressionData}
          onChange={(event) => setImpressionData(event.currentTarget.checked)}
        />
        <FormError error={create.error && !fieldError(create.error, "name") ? create.error : null} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button
            type="submit"
            loading={create.isPending}
            disabled={!name.trim() || patternProblem !== undefined}
          >
            Create flag
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
