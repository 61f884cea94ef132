import { Group, NumberInput, Radio, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan, type Verdict } from "../auth/session";
import { ChangeRequestSettings } from "../change-requests/config-section";
import { ConfirmButton } from "../components/confirm-button";
import { FormError, fieldError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { GuardedSection } from "../components/guarded-section";
import { notifyDone } from "../components/notify";
import { useFormSave } from "../components/use-form-save";
import { useContextFields } from "../flags/queries";
import { queryKeys } from "../query-keys";
import { matchesPattern } from "./naming";
import { ProjectEnvironments } from "./project-environments";
import type { Project } from "./queries";

type Mode = "open" | "protected" | "private";

const MODES: { value: Mode; label: string; description: string }[] = [
  {
    value: "open",
    label: "Open",
    description:
      "Everyone can see it; members change its flags (and, in the default project, the Editor role).",
  },
  {
    value: "protected",
    label: "Protected",
    description: "Everyone can see it; only its members change its flags, whatever their root role.",
  },
  {
    value: "private",
    label: "Private",
    description: "Hidden from everyone but its members and admins: not listed, searched or shown in events.",
  },
];

// Stickiness every SDK understands, before the context fields marked as usable for it.
const BUILT_IN_STICKINESS = ["default", "userId", "sessionId", "random"];

export function SettingsTab({ project }: { project: Project }) {
  const can = useCan();
  const scope = { project: project.id };
  return (
    <Stack maw={760}>
      <GeneralSettings project={project} verdict={can("UPDATE_PROJECT", scope)} />
      <ModeAndNaming project={project} verdict={can(["UPDATE_PROJECT", "PROJECT_SETTINGS_WRITE"], scope)} />
      <ProjectEnvironments project={project} verdict={can("UPDATE_PROJECT", scope)} />
      <ChangeRequestSettings projectId={project.id} verdict={can("PROJECT_CHANGE_REQUEST_WRITE", scope)} />
      <DangerZone project={project} verdict={can("DELETE_PROJECT", scope)} />
    </Stack>
  );
}

function useProjectSaved(project: Project, message: string) {
  const client = useQueryClient();
  return async () => {
    await Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.projects.detail(project.id), exact: true }),
      client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
    ]);
    notifyDone(message);
  };
}

function GeneralSettings({ project, verdict }: { project: Project; verdict: Verdict }) {
  const form = useForm({
    initialValues: {
      name: project.name,
      description: project.description ?? "",
      defaultStickiness: project.defaultStickiness,
      featureLimit: (project.featureLimit ?? "") as number | string,
    },
  });
  const fields = useContextFields();
  const stickinessOptions = [
    ...new Set([
      ...BUILT_IN_STICKINESS,
      ...(fields.data ?? []).filter((field) => field.stickiness).map((field) => field.name),
      project.defaultStickiness,
    ]),
  ];
  const saved = useProjectSaved(project, "Project saved");
  const { mutation: save, submit } = useFormSave(form, {
    save: ({ name, description, defaultStickiness, featureLimit }) =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}", {
          params: { path: { projectId: project.id } },
          body: {
            name,
            description: description || null,
            defaultStickiness,
            featureLimit: featureLimit === "" ? null : Number(featureLimit),
          },
        }),
      ),
    onSaved: saved,
  });
  return (
    <GuardedSection legend="General" verdict={verdict}>
      <form onSubmit={submit} aria-label="General settings">
        <Stack>
          <NameField {...form.getInputProps("name")} />
          <DescriptionField {...form.getInputProps("description")} />
          <SimpleGrid cols={2}>
            <Select
              label="Default stickiness"
              description="What new gradual rollouts keep a user's answer stable by."
              data={stickinessOptions}
              allowDeselect={false}
              {...form.getInputProps("defaultStickiness")}
            />
            <NumberInput
              label="Flag limit"
              description="Most active flags the project may hold; empty for no limit."
              min={0}
              allowDecimal={false}
              {...form.getInputProps("featureLimit")}
            />
          </SimpleGrid>
          <FormError error={save.error} />
          <FormActions submitLabel="Save" saving={save.isPending} disabled={!verdict.allowed} />
        </Stack>
      </form>
    </GuardedSection>
  );
}

/** Why a naming pattern or its example would be refused, said as the person types. */
function namingProblems(pattern: string, example: string) {
  if (!pattern) {
    return {
      example: example ? "An example needs a pattern." : undefined,
      pattern: undefined,
    };
  }
  const matches = example ? matchesPattern(pattern, example) : undefined;
  return {
    pattern:
      matchesPattern(pattern, "") === undefined
        ? "Not a regular expression this browser can read."
        : undefined,
    example: matches === false ? `The whole of "${example}" must match the pattern.` : undefined,
  };
}

function ModeAndNaming({ project, verdict }: { project: Project; verdict: Verdict }) {
  const form = useForm({
    initialValues: {
      mode: project.mode as Mode,
      pattern: project.featureNaming.pattern ?? "",
      example: project.featureNaming.example ?? "",
      description: project.featureNaming.description ?? "",
    },
  });
  const { pattern, example } = form.values;
  const problems = namingProblems(pattern, example);
  const saved = useProjectSaved(project, "Mode and naming saved");
  const { mutation: save, submit } = useFormSave(form, {
    save: ({ mode, pattern, example, description }) =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}/settings", {
          params: { path: { projectId: project.id } },
          body: {
            mode,
            featureNaming: {
              pattern: pattern || null,
              example: pattern && example ? example : null,
              description: pattern && description ? description : null,
            },
          },
        }),
      ),
    onSaved: saved,
  });
  const matched = pattern && example && !problems.pattern && !problems.example;
  return (
    <GuardedSection legend="Mode and flag naming" verdict={verdict}>
      <form onSubmit={submit} aria-label="Mode and flag naming">
        <Stack>
          <Radio.Group label="Mode" {...form.getInputProps("mode")}>
            <Stack gap="xs" mt="xs">
              {MODES.map((option) => (
                <Radio
                  key={option.value}
                  value={option.value}
                  label={option.label}
                  description={option.description}
                />
              ))}
            </Stack>
          </Radio.Group>
          <TextInput
            label="Flag naming pattern"
            description="A regular expression (RE2) the whole of every new flag's name must match; empty for none."
            placeholder="[a-z]+\.[a-z0-9-]+"
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            {...form.getInputProps("pattern")}
            error={problems.pattern ?? fieldError(save.error, "featureNaming")}
          />
          <SimpleGrid cols={2}>
            <TextInput
              label="Naming example"
              description={
                matched ? "Matches the pattern." : "A name that matches, shown to people creating flags."
              }
              {...form.getInputProps("example")}
              error={problems.example}
              disabled={!pattern}
            />
            <TextInput
              label="Naming description"
              description="What the parts of a name mean."
              {...form.getInputProps("description")}
              disabled={!pattern}
            />
          </SimpleGrid>
          <FormError error={save.error} />
          <FormActions
            submitLabel="Save"
            saving={save.isPending}
            disabled={!verdict.allowed || Boolean(problems.pattern ?? problems.example)}
          />
        </Stack>
      </form>
    </GuardedSection>
  );
}

function DangerZone({ project, verdict }: { project: Project; verdict: Verdict }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { projectId: project.id } } };
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.projects.detail(project.id) }),
      client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
    ]);
  return (
    <GuardedSection legend="Archive or delete" verdict={verdict}>
      <Stack gap="sm">
        {!project.archivedAt && (
          <Group justify="space-between">
            <Text size="sm">
              Archiving hides the project; it can be revived. It must hold no active flags.
            </Text>
            <ConfirmButton
              verdict={verdict}
              title={`Archive ${project.name}?`}
              message="The project leaves the list of projects until someone revives it."
              confirmLabel="Archive project"
              onConfirm={async () => {
                await unwrap(api.POST("/api/admin/projects/archive/{projectId}", path));
                await refresh();
                notifyDone(`Project ${project.name} archived`);
              }}
            >
              Archive project
            </ConfirmButton>
          </Group>
        )}
        <Group justify="space-between">
          <Text size="sm">Deleting removes the project and its archived flags for good.</Text>
          <ConfirmButton
            verdict={verdict}
            title={`Delete ${project.name}?`}
            message="The project and its archived flags are deleted for good. It must hold no active flags."
            confirmLabel="Delete project"
            onConfirm={async () => {
              await unwrap(api.DELETE("/api/admin/projects/{projectId}", path));
              client.removeQueries({ queryKey: queryKeys.projects.detail(project.id) });
              await client.invalidateQueries({ queryKey: queryKeys.projects.list() });
              notifyDone(`Project ${project.name} deleted`);
              navigate("/projects");
            }}
          >
            Delete project
          </ConfirmButton>
        </Group>
      </Stack>
    </GuardedSection>
  );
}
