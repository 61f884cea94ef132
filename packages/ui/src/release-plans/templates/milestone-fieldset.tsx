import {
  ActionIcon,
  Button,
  Fieldset,
  Group,
  NumberInput,
  Paper,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { IconArrowDown, IconArrowUp, IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { RemoveRowButton } from "../../components/editable-list";
import { useStrategyDefinitions } from "../../flags/queries";
import { GRADUAL_ROLLOUT, type StrategyDraft } from "../../flags/strategies/strategy-draft";
import { strategyLabel } from "../../flags/strategies/strategy-editor";
import { MilestoneStrategyModal } from "./milestone-strategy-modal";
import type { TemplateDraft } from "./template-draft";

/**
 * One milestone of a template: its name, when it hands over to the next on its own, and the
 * strategies it serves while it runs. Moved up and down with buttons, which a keyboard
 * reaches as easily as a pointer.
 */
export function MilestoneFieldset({
  form,
  index,
  onMove,
  onRemove,
}: {
  form: UseFormReturnType<TemplateDraft>;
  index: number;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const count = form.values.milestones.length;
  const milestone = form.values.milestones[index]!;
  const path = `milestones.${index}` as const;
  const strategiesError = form.errors[`${path}.strategies`] as string | undefined;
  const onStrategies = (strategies: StrategyDraft[]) => form.setFieldValue(`${path}.strategies`, strategies);
  const definitions = useStrategyDefinitions();
  const [editing, setEditing] = useState<{ at?: number } | undefined>();
  const legend = `Milestone ${index + 1}`;
  const last = index === count - 1;
  const label = (strategy: StrategyDraft) =>
    strategyLabel(
      { name: strategy.name, title: strategy.title },
      definitions.data?.strategies.find((definition) => definition.name === strategy.name),
    );
  const editedStrategy = editing?.at === undefined ? undefined : milestone.strategies[editing.at];

  return (
    <Fieldset legend={legend}>
      <Stack gap="sm">
        <Group align="flex-end" wrap="nowrap">
          <TextInput label="Name" required flex={1} {...form.getInputProps(`${path}.name`)} />
          {last ? (
            <Text size="sm" c="dimmed" w={260} pb={8}>
              The last milestone: it stays until the plan is removed.
            </Text>
          ) : (
            <NumberInput
              label="Advance after (minutes)"
              description="Empty: the next milestone is started by hand"
              w={260}
              min={1}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps(`${path}.advanceAfter`)}
            />
          )}
          <Group gap={4} wrap="nowrap" pb={4}>
            <ActionIcon
              variant="subtle"
              size="lg"
              aria-label={`Move ${legend} up`}
              title="Move up"
              disabled={index === 0}
              onClick={() => onMove(index - 1)}
            >
              <IconArrowUp size={18} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              size="lg"
              aria-label={`Move ${legend} down`}
              title="Move down"
              disabled={last}
              onClick={() => onMove(index + 1)}
            >
              <IconArrowDown size={18} />
            </ActionIcon>
            <RemoveRowButton label={`Remove ${legend}`} disabled={count === 1} onClick={onRemove} />
          </Group>
        </Group>

        <Text size="sm" fw={500}>
          Strategies while it runs
        </Text>
        {milestone.strategies.length === 0 && (
          <Text size="sm" c={strategiesError ? "red" : "dimmed"} role={strategiesError ? "alert" : undefined}>
            {strategiesError ?? "No strategies yet."}
          </Text>
        )}
        <Stack gap="xs" component="ol" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {milestone.strategies.map((strategy, at) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the rows hold no state of their own
            <Paper key={at} withBorder p="xs" component="li">
              <Group justify="space-between" wrap="nowrap">
                <Text size="sm">
                  <strong>{label(strategy)}</strong>
                  {strategy.name === GRADUAL_ROLLOUT && ` ${strategy.parameters.rollout ?? "100"}%`}
                  {strategy.constraints.length > 0 && `, ${strategy.constraints.length} constraints`}
                  {strategy.segments.length > 0 && `, ${strategy.segments.length} segments`}
                  {strategy.disabled && " (disabled)"}
                </Text>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    variant="subtle"
                    size="compact-sm"
                    aria-label={`Edit ${label(strategy)} of ${legend}`}
                    onClick={() => setEditing({ at })}
                  >
                    Edit
                  </Button>
                  <RemoveRowButton
                    label={`Remove ${label(strategy)} from ${legend}`}
                    size="md"
                    onClick={() => onStrategies(milestone.strategies.filter((_, other) => other !== at))}
                  />
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
        <Group>
          <Button
            variant="light"
            size="compact-sm"
            leftSection={<IconPlus size={14} />}
            aria-label={`Add a strategy to ${legend}`}
            onClick={() => setEditing({})}
          >
            Add strategy
          </Button>
        </Group>
      </Stack>
      {editing && (
        <MilestoneStrategyModal
          milestone={milestone.name}
          strategy={editedStrategy}
          onClose={() => setEditing(undefined)}
          onSave={(saved) => {
            onStrategies(
              editing.at === undefined
                ? [...milestone.strategies, saved]
                : milestone.strategies.map((old, at) => (at === editing.at ? saved : old)),
            );
            setEditing(undefined);
          }}
        />
      )}
    </Fieldset>
  );
}
