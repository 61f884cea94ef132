import { Badge, Group, Paper, Stack, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import type { Verdict } from "../../auth/session";
import { ConfirmButton } from "../../components/confirm-button";
import { GuardedButton } from "../../components/guarded-button";
import { RelativeTime } from "../../components/relative-time";
import type { StrategyDefinition } from "../../flags/queries";
import { strategyLabel } from "../../flags/strategies/strategy-editor";
import type { Milestone, Plan } from "../queries";
import type { ReleaseWrites } from "../release-writes";
import { countdown, minutesText, useNow } from "./countdown";
import {
  type MilestoneState,
  milestoneStates,
  milestoneSummary,
  ordered,
  STATE_LABELS,
} from "./milestone-states";
import { ProgressionModal } from "./progression-modal";

const STATE_COLORS: Record<MilestoneState, string> = {
  done: "teal",
  skipped: "gray",
  active: "blue",
  paused: "orange",
  waiting: "gray",
};

/**
 * A plan's milestones in the order they run, each done, active (highlighted, with the time
 * left before the next one while it advances on its own), paused or waiting; and what a
 * person may do to each: start it, set or remove when it hands over.
 */
export function MilestoneTimeline({
  plan,
  writes,
  verdict,
  definitions,
}: {
  plan: Plan;
  writes: ReleaseWrites;
  /** Whether the person may change the plan's progress here. */
  verdict: Verdict;
  definitions: StrategyDefinition[];
}) {
  const [editing, setEditing] = useState<Milestone | undefined>();
  const milestones = ordered(plan);
  const states = milestoneStates(plan);
  const start = useMutation({ mutationFn: (milestone: Milestone) => writes.startMilestone(plan, milestone) });
  const label = (strategy: { name: string; title: string | null }) =>
    strategyLabel(
      strategy,
      definitions.find((definition) => definition.name === strategy.name),
    );

  return (
    <>
      <Stack
        gap="xs"
        component="ol"
        aria-label={`Milestones of ${plan.name}`}
        style={{ listStyle: "none", padding: 0, margin: 0 }}
      >
        {milestones.map((milestone, index) => {
          const state = states.get(milestone.id) ?? "waiting";
          const running = state === "active" || state === "paused";
          const last = index === milestones.length - 1;
          return (
            <Paper
              key={milestone.id}
              component="li"
              withBorder
              p="sm"
              aria-label={`Milestone ${milestone.name}`}
              aria-current={running ? "step" : undefined}
              bg={running ? `var(--mantine-color-${STATE_COLORS[state]}-light)` : undefined}
              style={
                running
                  ? { borderColor: `var(--mantine-color-${STATE_COLORS[state]}-6)`, borderWidth: 2 }
                  : undefined
              }
            >
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={2}>
                  <Group gap="xs">
                    <Badge color={STATE_COLORS[state]} variant={running ? "filled" : "light"}>
                      {STATE_LABELS[state]}
                    </Badge>
                    <Text fw={600}>{milestone.name}</Text>
                    <Text size="sm" c="dimmed">
                      {milestoneSummary(milestone, label)}
                    </Text>
                  </Group>
                  <Progression
                    milestone={milestone}
                    target={milestones.find((other) => other.id === milestone.targetMilestone)}
                    state={state}
                    last={last}
                  />
                </Stack>
                <Group gap="xs" wrap="nowrap">
                  {!running && (
                    <GuardedButton
                      verdict={verdict}
                      size="compact-sm"
                      variant={index === 0 && state === "waiting" ? "filled" : "light"}
                      aria-label={`Start ${milestone.name}`}
                      loading={start.isPending && start.variables?.id === milestone.id}
                      onClick={() => start.mutate(milestone)}
                    >
                      Start
                    </GuardedButton>
                  )}
                  {!last && (
                    <GuardedButton
                      verdict={verdict}
                      size="compact-sm"
                      variant="subtle"
                      aria-label={`${milestone.transitionCondition ? "Edit" : "Set"} the progression of ${milestone.name}`}
                      onClick={() => setEditing(milestone)}
                    >
                      {milestone.transitionCondition ? "Edit progression" : "Set progression"}
                    </GuardedButton>
                  )}
                  {milestone.transitionCondition && (
                    <ConfirmButton
                      verdict={verdict}
                      aria-label={`Remove the progression of ${milestone.name}`}
                      title={`Stop ${milestone.name} advancing on its own?`}
                      message={
                        writes.reviewed
                          ? "This is added to your draft change request, and made when the request is applied."
                          : `${milestone.name} will stay until someone starts another milestone.`
                      }
                      confirmLabel={writes.reviewed ? "Add to draft" : "Remove progression"}
                      onConfirm={() => writes.deleteProgression(milestone)}
                    >
                      Remove progression
                    </ConfirmButton>
                  )}
                </Group>
              </Group>
            </Paper>
          );
        })}
      </Stack>
      {editing && (
        <ProgressionModal
          source={editing}
          milestones={milestones}
          active={editing.id === plan.activeMilestoneId}
          reviewed={writes.reviewed}
          onSave={(target, minutes) => writes.changeProgression(editing, target, minutes)}
          onClose={() => setEditing(undefined)}
        />
      )}
    </>
  );
}

/** When the milestone started, and when (or whether) it hands over, and to which milestone. */
function Progression({
  milestone,
  target,
  state,
  last,
}: {
  milestone: Milestone;
  /** The milestone its progression hands over to. */
  target: Milestone | undefined;
  state: MilestoneState;
  last: boolean;
}) {
  const interval = milestone.transitionCondition?.intervalMinutes;
  const to = target ? ` to ${target.name}` : "";
  const started = milestone.startedAt && (state === "active" || state === "paused" || state === "done") && (
    <>
      Started <RelativeTime value={milestone.startedAt} />.{" "}
    </>
  );
  let hands: ReactNode = null;
  if (state === "active" && milestone.progressionDueAt)
    hands = (
      <>
        {interval && `Advances${to} after ${minutesText(interval)}. `}
        <Countdown due={milestone.progressionDueAt} />
      </>
    );
  else if (state === "paused" && interval)
    hands = `Paused: it advances${to} ${minutesText(interval)} after the plan is resumed.`;
  else if (interval && state !== "done" && state !== "skipped")
    hands = `Advances${to} after ${minutesText(interval)} from its start.`;
  else if (!last && state !== "done" && state !== "skipped") hands = "The next milestone is started by hand.";
  if (!started && !hands) return null;
  return (
    <Text size="sm" c={state === "active" ? undefined : "dimmed"} component="div">
      {started}
      {hands}
    </Text>
  );
}

/** The time left before the next milestone starts, renewed every second. */
function Countdown({ due }: { due: string }) {
  const now = useNow(1_000);
  return (
    <Text span fw={600} role="timer" size="sm">
      {countdown(new Date(due), now)}
    </Text>
  );
}
