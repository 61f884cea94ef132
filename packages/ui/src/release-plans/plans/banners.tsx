import { Alert, Stack, Text } from "@mantine/core";
import { IconAlertTriangle, IconPlayerPause } from "@tabler/icons-react";
import { useMutation } from "@tanstack/react-query";
import type { Verdict } from "../../auth/session";
import { GuardedButton } from "../../components/guarded-button";
import { RelativeTime } from "../../components/relative-time";
import type { EnvironmentSafeguard, Plan } from "../queries";
import type { ReleaseWrites } from "../release-writes";
import { describeSafeguard } from "../safeguards/safeguard-draft";
import { activeMilestone } from "./milestone-states";

/**
 * Said where the person looks when a safeguard paused the plan: when, why, what goes on being
 * served, and the way out. Only a safeguard pauses a plan.
 */
export function PausedBanner({
  plan,
  writes,
  verdict,
}: {
  plan: Plan;
  writes: ReleaseWrites;
  verdict: Verdict;
}) {
  const resume = useMutation({ mutationFn: () => writes.resume(plan) });
  const active = activeMilestone(plan);
  if (!active?.pausedAt) return null;
  const safeguard = plan.safeguards[0];
  return (
    <Alert color="orange" icon={<IconPlayerPause />} title="Safeguard triggered: the release is paused">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          {safeguard ? `The safeguard (${describeSafeguard(safeguard)})` : "A safeguard"} paused {plan.name}{" "}
          <RelativeTime value={active.pausedAt} />. {active.name} goes on serving its strategies; the next
          milestone waits until the plan is resumed.
        </Text>
        <GuardedButton
          verdict={verdict}
          size="compact-sm"
          color="orange"
          aria-label={`Resume ${plan.name}`}
          loading={resume.isPending}
          onClick={() => resume.mutate()}
        >
          Resume
        </GuardedButton>
      </Stack>
    </Alert>
  );
}

/**
 * Said while the flag is off in the environment because its safeguard switched it off: the
 * switch alone would not say why.
 */
export function SwitchedOffBanner({
  environment,
  enabled,
  safeguard,
}: {
  environment: string;
  enabled: boolean;
  safeguard: EnvironmentSafeguard | undefined;
}) {
  if (enabled || !safeguard?.triggeredAt) return null;
  return (
    <Alert
      color="red"
      icon={<IconAlertTriangle />}
      title={`Safeguard switched this flag off in ${environment}`}
    >
      <Text size="sm">
        Its safeguard ({describeSafeguard(safeguard)}) switched it off{" "}
        <RelativeTime value={safeguard.triggeredAt} />. Switch it back on once the cause is found.
      </Text>
    </Alert>
  );
}
