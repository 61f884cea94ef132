import { Alert, Anchor, Fieldset, List, Select, Stack, Text } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { plural } from "../components/plural";
import { useCheckedForm } from "../components/use-checked-form";
import { useFormSave } from "../components/use-form-save";
import { ConstraintsEditor } from "../flags/constraints/constraints-editor";
import { type Constraint, constraintProblem, writableConstraints } from "../flags/constraints/operators";
import type { useSegments } from "../flags/queries";
import { useProjects } from "../projects/projects-page";
import { queryKeys } from "../query-keys";

export type Segment = NonNullable<ReturnType<typeof useSegments>["data"]>["segments"][number];

/** What keeps the constraints from being saved, one sentence each. */
const constraintProblems = (constraints: Constraint[]) =>
  constraints.flatMap((constraint, index) => {
    const problem = constraintProblem(constraint);
    return problem ? [`Constraint ${index + 1}: ${problem}`] : [];
  });

/** Creates a segment or changes one: its name, description, project and constraints, saved together. */
export function SegmentForm({ segment, onDone }: { segment: Segment | undefined; onDone: () => void }) {
  const client = useQueryClient();
  const projects = useProjects();
  const form = useCheckedForm({
    initialValues: {
      name: segment?.name ?? "",
      description: segment?.description ?? "",
      project: segment?.project ?? null,
      constraints: segment?.constraints ?? ([] as Constraint[]),
    },
    validate: {
      constraints: (constraints) => constraintProblems(constraints).join(" ") || null,
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, description, project, constraints }) => {
      const body = {
        name,
        description: description || null,
        project,
        constraints: writableConstraints(constraints),
      };
      if (segment)
        await unwrap(api.PUT("/api/admin/segments/{id}", { params: { path: { id: segment.id } }, body }));
      else await unwrap(api.POST("/api/admin/segments", { body }));
    },
    onSaved: async (_, { name }) => {
      // Flags show their strategies' segments, so they change with it.
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.segments.list() }),
        client.invalidateQueries({ queryKey: queryKeys.flags.all() }),
      ]);
      notifyDone(segment ? `Segment ${name} saved.` : `Segment ${name} created.`);
      onDone();
    },
  });
  const { project } = form.values;
  const projectOptions = (projects.data?.projects ?? []).map((candidate) => ({
    value: candidate.id,
    label: candidate.name,
  }));

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField {...form.getInputProps("name")} />
        <DescriptionField {...form.getInputProps("description")} />
        <Select
          label="Project"
          description="Only flags of this project can use it. Empty: flags of every project can."
          placeholder="All projects"
          clearable
          searchable
          data={
            project && !projectOptions.some((option) => option.value === project)
              ? [...projectOptions, { value: project, label: project }]
              : projectOptions
          }
          {...form.getInputProps("project")}
        />
        <Fieldset legend="Constraints">
          <Text size="sm" c="dimmed" mb="sm">
            Someone is in the segment when every constraint holds.
          </Text>
          <ConstraintsEditor
            value={form.values.constraints}
            onChange={(next) => form.setFieldValue("constraints", next)}
          />
        </Fieldset>
        {segment && segment.usedInFeatures > 0 && <SegmentUses id={segment.id} />}
        {form.errors.constraints && (
          <Alert color="red" role="alert" title="Not saved">
            {form.errors.constraints}
          </Alert>
        )}
        <FormError error={save.error} inline={["name", "project"]} />
        <FormActions
          submitLabel={segment ? "Save segment" : "Create segment"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}

/** The strategies a change to the segment reaches, so whoever saves it knows. */
function SegmentUses({ id }: { id: number }) {
  const uses = useQuery({
    queryKey: queryKeys.segments.strategies(id),
    queryFn: () => unwrap(api.GET("/api/admin/segments/strategies/{id}", { params: { path: { id } } })),
  });
  const strategies = uses.data?.strategies ?? [];
  if (strategies.length === 0) return null;
  return (
    <Alert color="blue" title={`Used by ${plural(strategies.length, "strategy", "strategies")}`}>
      <List size="sm">
        {strategies.map((strategy) => (
          <List.Item key={strategy.id}>
            <Anchor
              component={Link}
              to={`/projects/${encodeURIComponent(strategy.projectId)}/features/${encodeURIComponent(strategy.featureName)}`}
            >
              {strategy.featureName}
            </Anchor>{" "}
            in {strategy.environment} ({strategy.strategyName})
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
