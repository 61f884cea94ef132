import { Button, Group, MultiSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { FormError } from "../../components/form-error";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { pickHint } from "../../components/pick-hint";
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
  const gate = useChangeGate(flag.project);
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

  // Environments that require change requests get the variants in the person's draft for
  // each; the others are saved at once, together.
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
      const projectAndFlag = { projectId: flag.project, featureName: flag.name };
      const { direct, drafted } = await gate.partition([name, ...alsoTo]);
      if (direct.length === 1) {
        await unwrap(
          api.PUT(
            "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants",
            {
              params: { path: { ...projectAndFlag, environment: direct[0] ?? name } },
              body: draft,
            },
          ),
        );
      } else if (direct.length > 1) {
        await unwrap(
          api.PUT("/api/admin/projects/{projectId}/features/{featureName}/variants-batch", {
            params: { path: projectAndFlag },
            body: { variants: draft, environments: direct },
          }),
        );
      }
      for (const environment of drafted) {
        await gate.draft(environment, {
          feature: flag.name,
          action: "patchVariant",
          payload: { variants: draft },
        });
      }
      return direct;
    },
    onSuccess: async (direct) => {
      await flagChanged();
      // What is drafted is not stored yet: the editor shows the stored variants again.
      setDraft(stored);
      setAlsoTo([]);
      if (direct.length > 0) notifyDone(`Variants saved in ${direct.join(", ")}.`);
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
            placeholder={pickHint(alsoTo, "Pick environments")}
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
            {gate.requiresRequest(name) ? `Add variants in ${name} to draft` : `Save variants in ${name}`}
          </GuardedButton>
        </Group>
      </Stack>
    </Paper>
  );
}
