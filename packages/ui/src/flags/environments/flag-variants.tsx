import { Button, Group, MultiSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { FormError } from "../../components/form-error";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { fromStored, type Variant, VariantsEditor, variantsProblem } from "../../variants/variants-editor";
import { useFlagCan } from "../permissions";
import { type Flag, type FlagEnvironment, useFlagChanged } from "../queries";

/** The flag's variants, edited and saved one environment at a time (or copied to others). */
export function FlagVariants({ flag }: { flag: Flag }) {
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Variants are what SDKs answer when they ask which version of the flag a user gets. Each environment
        keeps its own; a strategy's variants, when it has some, come first.
      </Text>
      {flag.environments.map((environment) => (
        // A save (here or elsewhere) starts the editor again from what the service stored.
        <EnvironmentVariants
          key={`${environment.name}:${JSON.stringify(environment.variants)}`}
          flag={flag}
          environment={environment}
        />
      ))}
    </Stack>
  );
}

function EnvironmentVariants({ flag, environment }: { flag: Flag; environment: FlagEnvironment }) {
  const can = useFlagCan(flag);
  const flagChanged = useFlagChanged({ projectId: flag.project, featureName: flag.name });
  const stored = fromStored(environment.variants);
  const [draft, setDraft] = useState<Variant[]>(stored);
  const [alsoTo, setAlsoTo] = useState<string[]>([]);
  const name = environment.name;
  const changed = JSON.stringify(draft) !== JSON.stringify(stored);
  const problem = variantsProblem(draft);
  const verdict = can("UPDATE_FEATURE_ENVIRONMENT_VARIANTS", name);
  const others = flag.environments
    .map((other) => other.name)
    .filter((other) => other !== name && can("UPDATE_FEATURE_ENVIRONMENT_VARIANTS", other).allowed);

  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () => {
      const projectAndFlag = { projectId: flag.project, featureName: flag.name };
      if (alsoTo.length === 0) {
        return unwrap(
          api.PUT(
            "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants",
            {
              params: { path: { ...projectAndFlag, environment: name } },
              body: draft,
            },
          ),
        );
      }
      return unwrap(
        api.PUT("/api/admin/projects/{projectId}/features/{featureName}/variants-batch", {
          params: { path: projectAndFlag },
          body: { variants: draft, environments: [name, ...alsoTo] },
        }),
      );
    },
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`Variants saved in ${[name, ...alsoTo].join(", ")}.`);
    },
  });

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={`variants-${name}`}>
      <Stack gap="sm">
        <Title order={3} id={`variants-${name}`}>
          Variants in {name}
        </Title>
        <VariantsEditor value={draft} onChange={setDraft} kind="flag" environment={name} />
        {others.length > 0 && (
          <MultiSelect
            label="Also save to"
            description="The same variants replace those of the environments chosen"
            data={others}
            value={alsoTo}
            onChange={setAlsoTo}
            maw={480}
            clearable
          />
        )}
        <FormError error={save.error} />
        <Group justify="flex-end">
          {problem && (
            <Text size="sm" c="red">
              Not ready to save: {problem}
            </Text>
          )}
          <Button variant="default" disabled={!changed} onClick={() => setDraft(stored)}>
            Discard changes
          </Button>
          <GuardedButton
            verdict={verdict}
            disabled={(!changed && alsoTo.length === 0) || problem !== undefined}
            loading={save.isPending}
            onClick={() => save.mutate()}
          >
            Save variants in {name}
          </GuardedButton>
        </Group>
      </Stack>
    </Paper>
  );
}
