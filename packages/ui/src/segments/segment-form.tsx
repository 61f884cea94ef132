import {
  Alert,
  Anchor,
  Button,
  Fieldset,
  Group,
  List,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import { plural } from "../components/plural";
import { ConstraintsEditor } from "../flags/constraints/constraints-editor";
import { type Constraint, constraintProblem, writableConstraints } from "../flags/constraints/operators";
import type { useSegments } from "../flags/queries";
import { useProjects } from "../projects/projects-page";

export type Segment = NonNullable<ReturnType<typeof useSegments>["data"]>["segments"][number];

/** Creates a segment or changes one: its name, description, project and constraints, saved together. */
export function SegmentForm({ segment, onDone }: { segment: Segment | undefined; onDone: () => void }) {
  const client = useQueryClient();
  const projects = useProjects();
  const [name, setName] = useState(segment?.name ?? "");
  const [description, setDescription] = useState(segment?.description ?? "");
  const [project, setProject] = useState<string | null>(segment?.project ?? null);
  const [constraints, setConstraints] = useState<Constraint[]>(segment?.constraints ?? []);
  const [tried, setTried] = useState(false);
  const problems = constraints.flatMap((constraint, index) => {
    const problem = constraintProblem(constraint);
    return problem ? [`Constraint ${index + 1}: ${problem}`] : [];
  });
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
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
    onSuccess: async () => {
      // Flags show their strategies' segments, so they change with it.
      await Promise.all([
        client.invalidateQueries({ queryKey: ["segments"] }),
        client.invalidateQueries({ queryKey: ["flag"] }),
      ]);
      notifyDone(segment ? `Segment ${name} saved.` : `Segment ${name} created.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (problems.length === 0) save.mutate();
  };
  const projectOptions = (projects.data?.projects ?? []).map((candidate) => ({
    value: candidate.id,
    label: candidate.name,
  }));

  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
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
          value={project}
          onChange={setProject}
          error={fieldError(save.error, "project")}
        />
        <Fieldset legend="Constraints">
          <Text size="sm" c="dimmed" mb="sm">
            Someone is in the segment when every constraint holds.
          </Text>
          <ConstraintsEditor value={constraints} onChange={setConstraints} />
        </Fieldset>
        {segment && segment.usedInFeatures > 0 && <SegmentUses id={segment.id} />}
        {tried && problems.length > 0 && (
          <Alert color="red" role="alert" title="Not saved">
            {problems.join(" ")}
          </Alert>
        )}
        <FormError error={save.error} inline={["name", "project"]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {segment ? "Save segment" : "Create segment"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The strategies a change to the segment reaches, so whoever saves it knows. */
function SegmentUses({ id }: { id: number }) {
  const uses = useQuery({
    queryKey: ["segments", id, "strategies"],
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
