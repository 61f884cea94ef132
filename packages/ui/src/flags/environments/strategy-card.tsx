import type { DraggableAttributes, DraggableSyntheticListeners } from "@dnd-kit/core";
import { ActionIcon, Badge, Group, List, Paper, Progress, Stack, Text, Tooltip } from "@mantine/core";
import { IconGripVertical } from "@tabler/icons-react";
import type { ReactNode } from "react";
import { formatPercent } from "../../variants/weights";
import { describeConstraint } from "../constraints/operators";
import type { Strategy, StrategyDefinition, useSegments } from "../queries";
import { GRADUAL_ROLLOUT } from "../strategies/strategy-draft";
import { strategyLabel } from "../strategies/strategy-editor";

type Segment = NonNullable<ReturnType<typeof useSegments>["data"]>["segments"][number];

/** The handle a sortable list gives a card: where to grab it, by pointer or keyboard. */
export interface DragHandle {
  attributes: DraggableAttributes;
  listeners: DraggableSyntheticListeners;
  disabledReason: string | undefined;
}

/**
 * One strategy as it reads: what it is, for whom (segments, constraints), how much
 * (rollout), and what it hands out (variants); `actions` are the buttons that change it.
 */
export function StrategyCard({
  strategy,
  definition,
  segments,
  handle,
  actions,
}: {
  strategy: Strategy;
  definition: StrategyDefinition | undefined;
  segments: Segment[];
  handle: DragHandle;
  actions: ReactNode;
}) {
  const label = strategyLabel(strategy, definition);
  const typeName = definition?.displayName || strategy.name;
  const used = strategy.segments.map(
    (id) => segments.find((segment) => segment.id === id) ?? { id, name: `segment ${id}`, constraints: [] },
  );

  return (
    <Paper
      withBorder
      p="sm"
      opacity={strategy.disabled ? 0.7 : 1}
      aria-label={`Strategy ${label}`}
      component="article"
    >
      <Group align="flex-start" wrap="nowrap" gap="sm">
        {handle.disabledReason ? (
          <Tooltip label={handle.disabledReason}>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Move ${label}`}
              aria-description={handle.disabledReason}
              data-disabled
              onClick={(event) => event.preventDefault()}
            >
              <IconGripVertical size={18} />
            </ActionIcon>
          </Tooltip>
        ) : (
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Move ${label}`}
            style={{ cursor: "grab", touchAction: "none" }}
            {...handle.attributes}
            {...handle.listeners}
          >
            <IconGripVertical size={18} />
          </ActionIcon>
        )}
        <Stack gap={6} flex={1}>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <Group gap="xs">
              <Text fw={600}>{label}</Text>
              {label !== typeName && (
                <Badge variant="light" color="gray" tt="none">
                  {typeName}
                </Badge>
              )}
              {strategy.disabled && <Badge color="orange">Disabled</Badge>}
            </Group>
            <Group gap="xs" wrap="nowrap">
              {actions}
            </Group>
          </Group>
          <StrategyParameters strategy={strategy} definition={definition} />
          {used.length > 0 && (
            <Group gap="xs">
              <Text size="sm" c="dimmed">
                Segments:
              </Text>
              {used.map((segment) => (
                <Badge
                  key={segment.id}
                  variant="outline"
                  tt="none"
                  title={segment.constraints.map(describeConstraint).join("; and ")}
                >
                  {segment.name}
                </Badge>
              ))}
            </Group>
          )}
          {strategy.constraints.length > 0 && (
            <List size="sm" aria-label={`Constraints of ${label}`}>
              {strategy.constraints.map((constraint, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a read-only list in stored order
                <List.Item key={index}>{describeConstraint(constraint)}</List.Item>
              ))}
            </List>
          )}
          {strategy.variants.length > 0 && (
            <Text size="sm">
              Variants:{" "}
              {strategy.variants
                .map((variant) => `${variant.name} (${formatPercent(variant.weight)})`)
                .join(", ")}
            </Text>
          )}
        </Stack>
      </Group>
    </Paper>
  );
}

function StrategyParameters({
  strategy,
  definition,
}: {
  strategy: Strategy;
  definition: StrategyDefinition | undefined;
}) {
  const { parameters } = strategy;
  if (strategy.name === GRADUAL_ROLLOUT) {
    const rollout = Number(parameters.rollout ?? 0);
    const stickiness = parameters.stickiness || "default";
    return (
      <Stack gap={4}>
        <Text size="sm">
          Rollout <strong>{rollout}%</strong> of users by {stickiness}
          {parameters.groupId ? `, group ${parameters.groupId}` : ""}
        </Text>
        <Progress value={rollout} size="sm" aria-label={`Rollout ${rollout}%`} maw={360} />
      </Stack>
    );
  }
  const entries = Object.entries(parameters).filter(([, value]) => value !== "");
  if (entries.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {definition?.description ?? "On for everyone its constraints let through."}
      </Text>
    );
  }
  return (
    <Stack gap={2}>
      {entries.map(([name, value]) => {
        const type = definition?.parameters.find((parameter) => parameter.name === name)?.type;
        return (
          <Text size="sm" key={name}>
            {name}:{" "}
            <strong>
              {type === "list" ? value.split(",").join(", ") : type === "percentage" ? `${value}%` : value}
            </strong>
          </Text>
        );
      })}
    </Stack>
  );
}
