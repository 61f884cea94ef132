import {
  Alert,
  Button,
  Checkbox,
  Divider,
  Group,
  List,
  Modal,
  MultiSelect,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { api, unwrap } from "../../api/client";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { FormError } from "../../components/form-error";
import { notifyDone } from "../../components/notify";
import { pickHint } from "../../components/pick-hint";
import { VariantsEditor } from "../../variants/variants-editor";
import { ConstraintsEditor } from "../constraints/constraints-editor";
import { describeConstraint } from "../constraints/operators";
import {
  type FlagPlace,
  type Strategy,
  type StrategyDefinition,
  useFlagChanged,
  useSegments,
  useStrategyDefinitions,
} from "../queries";
import { DeclaredParameterFields, GradualRolloutFields } from "./parameter-fields";
import {
  defaultParameters,
  draftOf,
  draftProblems,
  fieldsDefinition,
  GRADUAL_ROLLOUT,
  newDraft,
  type StrategyDraft,
  type StrategyPlace,
  strategyBody,
} from "./strategy-draft";

export const strategyLabel = (
  strategy: { name: string; title?: string | null },
  definition?: StrategyDefinition,
) => strategy.title || definition?.displayName || strategy.name;

/**
 * Adds a strategy to a flag in one environment, or changes one: its type and parameters, who
 * it targets (segments and constraints) and the variants it hands out. Opened by mounting it.
 */
export function StrategyEditor({
  place,
  environment,
  strategy,
  defaultStickiness,
  onClose,
}: {
  place: FlagPlace;
  environment: string;
  /** The strategy to change; a new one when absent. */
  strategy?: Strategy;
  defaultStickiness: string;
  onClose: () => void;
}) {
  const definitions = useStrategyDefinitions();
  const segments = useSegments();
  const flagChanged = useFlagChanged(place);
  const gate = useChangeGate(place.projectId);
  const defaults = { featureName: place.featureName, defaultStickiness };
  const [draft, setDraft] = useState<StrategyDraft>(() =>
    strategy ? draftOf(strategy, defaults) : newDraft(defaults),
  );
  const change = (patch: Partial<StrategyDraft>) => setDraft((current) => ({ ...current, ...patch }));

  const known = definitions.data?.strategies ?? [];
  const definition = known.find((candidate) => candidate.name === draft.name);
  const problems = draftProblems(draft, definition);
  const title = strategy
    ? `Edit strategy ${strategyLabel(strategy, definition)} in ${environment}`
    : `Add a strategy in ${environment}`;

  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () => {
      const path = { ...place, environment };
      const body = strategyBody(draft);
      const base =
        "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies";
      const feature = place.featureName;
      return strategy
        ? gate.send(
            environment,
            { feature, action: "updateStrategy", payload: { ...body, id: strategy.id } },
            () =>
              unwrap(
                api.PUT(`${base}/{strategyId}`, {
                  params: { path: { ...path, strategyId: strategy.id } },
                  body,
                }),
              ),
          )
        : gate.send(environment, { feature, action: "addStrategy", payload: body }, () =>
            unwrap(api.POST(base, { params: { path }, body })),
          );
    },
    onSuccess: async (outcome) => {
      await flagChanged();
      if (!outcome.drafted) notifyDone(strategy ? "Strategy saved." : `Strategy added in ${environment}.`);
      onClose();
    },
  });

  return (
    <Modal opened onClose={onClose} title={title} size="xl">
      <Stack gap="lg">
        <StrategyFields
          draft={draft}
          onChange={change}
          place={defaults}
          segments={(segments.data?.segments ?? []).filter(
            (segment) => segment.project === null || segment.project === place.projectId,
          )}
          environment={environment}
        />
        <DraftProblems problems={problems} />
        <FormError error={save.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => save.mutate()} loading={save.isPending} disabled={problems.length > 0}>
            {gate.requiresRequest(environment) ? "Add to draft" : strategy ? "Save strategy" : "Add strategy"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

type Segment = NonNullable<ReturnType<typeof useSegments>["data"]>["segments"][number];

/**
 * A strategy's fields, whatever it is written for: a flag's environment (`StrategyEditor`) or
 * a release template's milestone. `segments` are those it may name there. In a template a
 * gradual rollout's group may stay empty (`template`): it becomes the flag's name when the
 * milestone starts, so one template serves every flag.
 */
export function StrategyFields({
  draft,
  onChange,
  place,
  segments,
  environment,
  template = false,
}: {
  draft: StrategyDraft;
  onChange: (patch: Partial<StrategyDraft>) => void;
  place: StrategyPlace;
  segments: Segment[];
  environment?: string;
  template?: boolean;
}) {
  const definitions = useStrategyDefinitions();
  const known = definitions.data?.strategies ?? [];
  const definition = fieldsDefinition(
    known.find((candidate) => candidate.name === draft.name),
    template,
  );
  const typeOptions = known
    .filter((candidate) => !candidate.deprecated || candidate.name === draft.name)
    .map((candidate) => ({ value: candidate.name, label: candidate.displayName || candidate.name }));
  if (!typeOptions.some((option) => option.value === draft.name)) {
    typeOptions.push({ value: draft.name, label: draft.name });
  }
  const chosenSegments = segments.filter((segment) => draft.segments.includes(segment.id));

  return (
    <>
      <Section title="Strategy">
        <Select
          label="Strategy type"
          description={definition?.description ?? undefined}
          data={typeOptions}
          value={draft.name}
          onChange={(name) =>
            name &&
            onChange({
              name,
              parameters: defaultParameters(
                name,
                known.find((candidate) => candidate.name === name),
                place,
              ),
            })
          }
          allowDeselect={false}
          searchable
        />
        <TextInput
          label="Title"
          description="Optional: says what this strategy is for, in the flag's overview"
          value={draft.title}
          onChange={(event) => onChange({ title: event.currentTarget.value })}
        />
        {draft.name === GRADUAL_ROLLOUT ? (
          <GradualRolloutFields
            declared={definition?.parameters ?? []}
            parameters={draft.parameters}
            onChange={(parameters) => onChange({ parameters })}
            groupIdDescription={
              template
                ? "Flags with the same group id put the same users in their rollout. Empty: the flag's name, when the milestone starts"
                : undefined
            }
          />
        ) : (
          <DeclaredParameterFields
            declared={definition?.parameters ?? []}
            parameters={draft.parameters}
            onChange={(parameters) => onChange({ parameters })}
          />
        )}
        <Checkbox
          label="Disabled"
          description="Kept with the flag, but not evaluated: the flag is on for nobody through it"
          checked={draft.disabled}
          onChange={(event) => onChange({ disabled: event.currentTarget.checked })}
        />
      </Section>

      <Section title="Targeting">
        <MultiSelect
          label="Segments"
          description="Everyone the strategy is on for must be in each segment chosen"
          placeholder={pickHint(draft.segments, "Pick segments")}
          data={segments.map((segment) => ({ value: String(segment.id), label: segment.name }))}
          value={draft.segments.map(String)}
          onChange={(ids) => onChange({ segments: ids.map(Number) })}
          searchable
          clearable
          nothingFoundMessage="No segment by that name"
        />
        {chosenSegments.length > 0 && (
          <List size="sm" aria-label="Chosen segments">
            {chosenSegments.map((segment) => (
              <List.Item key={segment.id}>
                <Text span fw={500} size="sm">
                  {segment.name}:
                </Text>{" "}
                {segment.constraints.map(describeConstraint).join("; and ") || "no constraints"}
              </List.Item>
            ))}
          </List>
        )}
        <Text size="sm" fw={500}>
          Constraints
        </Text>
        <ConstraintsEditor value={draft.constraints} onChange={(constraints) => onChange({ constraints })} />
      </Section>

      <Section title="Variants">
        <VariantsEditor
          value={draft.variants}
          onChange={(variants) => onChange({ variants })}
          kind="strategy"
          environment={environment}
        />
      </Section>
    </>
  );
}

/** What keeps a strategy from being saved, listed above the buttons. */
export function DraftProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <Alert color="yellow" title="Not ready to save">
      <List size="sm">
        {problems.map((problem) => (
          <List.Item key={problem}>{problem}</List.Item>
        ))}
      </List>
    </Alert>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="sm">
      <Divider />
      <Title order={4}>{title}</Title>
      {children}
    </Stack>
  );
}
