import { Group, Stack, Text, Title } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ConfirmButton } from "../../components/confirm-button";
import { ErrorPanel } from "../../components/error-panel";
import { GuardedButton } from "../../components/guarded-button";
import { useFlagCan } from "../../flags/permissions";
import type { Flag, StrategyDefinition } from "../../flags/queries";
import { queryKeys } from "../../query-keys";
import {
  type EnvironmentSafeguard,
  type Plan,
  type PlanPlace,
  useEnvironmentSafeguards,
  usePlans,
} from "../queries";
import { useReleaseWrites } from "../release-writes";
import { SafeguardPanel } from "../safeguards/safeguard-panel";
import { AddPlanModal } from "./add-plan-modal";
import { PausedBanner } from "./banners";
import { activeMilestone } from "./milestone-states";
import { MilestoneTimeline } from "./milestone-timeline";

/**
 * The flag's strategies and switch change when a milestone hands over or a safeguard acts,
 * which the service does on its own: when the plan or safeguard read every few seconds shows
 * such a step, the flag (and the safeguards' charts) are read again too.
 */
function useFollowSteps(
  place: PlanPlace,
  plan: Plan | undefined,
  safeguard: EnvironmentSafeguard | undefined,
) {
  const client = useQueryClient();
  const active = plan && activeMilestone(plan);
  const step = [active?.id, active?.startedAt, active?.pausedAt, safeguard?.triggeredAt].join("|");
  const seen = useRef(step);
  useEffect(() => {
    if (seen.current === step) return;
    seen.current = step;
    void client.invalidateQueries({
      queryKey: queryKeys.flags.detail(place.projectId, place.featureName),
      exact: true,
    });
    void client.invalidateQueries({ queryKey: queryKeys.events.all() });
    // A safeguard acted on values its chart may not show yet.
    void client.invalidateQueries({ queryKey: queryKeys.impactMetrics.all() });
  }, [client, step, place.projectId, place.featureName]);
}

/**
 * A flag environment's release plan: adding one from a template, its milestones as a
 * timeline, pausing's banner, its safeguard, and removing it.
 */
export function ReleasePlanSection({
  flag,
  environment,
  definitions,
}: {
  flag: Flag;
  environment: string;
  definitions: StrategyDefinition[];
}) {
  const place: PlanPlace = { projectId: flag.project, featureName: flag.name, environment };
  const can = useFlagCan(flag);
  const writes = useReleaseWrites(place);
  const plans = usePlans(place);
  const safeguards = useEnvironmentSafeguards(place);
  const plan = plans.data?.[0];
  const [adding, setAdding] = useState(false);
  useFollowSteps(place, plan, safeguards.data?.[0]);
  const headingId = `release-plan-${environment}`;
  const progress = can("UPDATE_FEATURE_STRATEGY", environment);

  return (
    <Stack gap="sm" component="section" aria-labelledby={headingId}>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={4} id={headingId}>
            Release plan
          </Title>
          {plan && <Text c="dimmed">{plan.name}</Text>}
        </Group>
        {plan ? (
          <ConfirmButton
            verdict={can("DELETE_FEATURE_STRATEGY", environment)}
            aria-label={`Remove release plan ${plan.name} from ${environment}`}
            title={`Remove release plan ${plan.name}?`}
            message={
              writes.reviewed
                ? `Removing the plan from ${flag.name} in ${environment} is added to your draft change request.`
                : `The plan and its safeguard are removed from ${environment}. The strategies it serves now stay.`
            }
            confirmLabel={writes.reviewed ? "Add to draft" : "Remove plan"}
            onConfirm={() => writes.removePlan(plan)}
          >
            Remove plan
          </ConfirmButton>
        ) : (
          <GuardedButton
            verdict={can("CREATE_FEATURE_STRATEGY", environment)}
            variant="light"
            size="compact-sm"
            leftSection={<IconPlus size={14} />}
            aria-label={`Add a release plan in ${environment}`}
            disabled={plans.isPending}
            onClick={() => setAdding(true)}
          >
            Add release plan
          </GuardedButton>
        )}
      </Group>
      {plans.isError && <ErrorPanel error={plans.error} />}
      {plan ? (
        <>
          <PausedBanner plan={plan} writes={writes} verdict={progress} />
          <MilestoneTimeline plan={plan} writes={writes} verdict={progress} definitions={definitions} />
          <SafeguardPanel
            subject={`release plan ${plan.name}`}
            effect="A safeguard on the plan pauses it when an impact metric goes wrong: the active milestone goes on, the next waits."
            safeguard={plan.safeguards[0]}
            verdict={progress}
            reviewed={writes.reviewed}
            onSave={(safeguard) => writes.putPlanSafeguard(plan, safeguard)}
            onRemove={(safeguard) => writes.deletePlanSafeguard(plan, safeguard)}
          />
        </>
      ) : (
        plans.isSuccess && (
          <Text size="sm" c="dimmed">
            No release plan here. A plan from a release template rolls the flag out milestone by milestone.
          </Text>
        )
      )}
      {adding && (
        <AddPlanModal
          environment={environment}
          reviewed={writes.reviewed}
          onAdd={writes.addPlan}
          onClose={() => setAdding(false)}
        />
      )}
    </Stack>
  );
}

/** The environment's own safeguard, which switches the flag off there when it holds. */
export function EnvironmentSafeguardSection({ flag, environment }: { flag: Flag; environment: string }) {
  const place: PlanPlace = { projectId: flag.project, featureName: flag.name, environment };
  const can = useFlagCan(flag);
  const writes = useReleaseWrites(place);
  const safeguards = useEnvironmentSafeguards(place);
  const headingId = `safeguard-${environment}`;
  return (
    <Stack gap="xs" component="section" aria-labelledby={headingId}>
      <Title order={4} id={headingId}>
        Safeguard
      </Title>
      {safeguards.isError && <ErrorPanel error={safeguards.error} />}
      {safeguards.isSuccess && (
        <SafeguardPanel
          subject={`${flag.name} in ${environment}`}
          effect={`A safeguard on the environment switches the flag off in ${environment} when an impact metric goes wrong.`}
          safeguard={safeguards.data[0]}
          verdict={can("UPDATE_FEATURE_ENVIRONMENT", environment)}
          reviewed={writes.reviewed}
          onSave={writes.putEnvironmentSafeguard}
          onRemove={writes.deleteEnvironmentSafeguard}
        />
      )}
    </Stack>
  );
}
