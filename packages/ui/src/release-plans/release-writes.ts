import { useCallback, useMemo } from "react";
import { api, unwrap } from "../api/client";
import type { ChangeInput } from "../change-requests/queries";
import { type Outcome, useChangeGate } from "../change-requests/use-change-gate";
import { notifyDone } from "../components/notify";
import { useFlagChanged } from "../flags/queries";
import type { Milestone, Plan, PlanPlace, Safeguard, SafeguardInput, Template } from "./queries";

const ENVIRONMENT =
  "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}" as const;
const PLAN = `${ENVIRONMENT}/release-plans/{planId}` as const;

/**
 * Every step a person takes on a flag environment's release plan and safeguards, each through
 * the change gate as a strategy's change goes: made at once, or added to the person's draft as
 * the change-request action the service names for it. Whatever became of it, the flag's page
 * (its strategies, plans and safeguards, all under the flag's key) is read again.
 */
export function useReleaseWrites(place: PlanPlace) {
  const gate = useChangeGate(place.projectId);
  const flagChanged = useFlagChanged(place);
  const { environment, featureName: feature } = place;

  const send = useCallback(
    async (
      change: Omit<ChangeInput, "feature">,
      direct: () => Promise<unknown>,
      done: string,
    ): Promise<Outcome> => {
      const outcome = await gate.send(environment, { feature, ...change }, direct);
      await flagChanged();
      if (!outcome.drafted) notifyDone(done);
      return outcome;
    },
    [gate, environment, feature, flagChanged],
  );

  return useMemo(() => {
    const path = { path: place };
    const ofPlan = (plan: Plan) => ({ path: { ...place, planId: plan.id } });
    return {
      /** Whether the person's steps here go to a draft (known once the project's configuration has loaded). */
      reviewed: gate.requiresRequest(environment),

      addPlan: (template: Template) =>
        send(
          { action: "addReleasePlan", payload: { templateId: template.id } },
          () =>
            unwrap(
              api.POST(`${ENVIRONMENT}/release-plans`, { params: path, body: { templateId: template.id } }),
            ),
          `Release plan ${template.name} added in ${environment}.`,
        ),

      removePlan: (plan: Plan) =>
        send(
          { action: "deleteReleasePlan", payload: { planId: plan.id } },
          () => unwrap(api.DELETE(PLAN, { params: ofPlan(plan) })),
          `Release plan ${plan.name} removed from ${environment}.`,
        ),

      startMilestone: (plan: Plan, milestone: Milestone) =>
        send(
          { action: "startMilestone", payload: { milestoneId: milestone.id } },
          () =>
            unwrap(
              api.POST(`${PLAN}/milestones/{milestoneId}/start`, {
                params: { path: { ...place, planId: plan.id, milestoneId: milestone.id } },
              }),
            ),
          `Milestone ${milestone.name} started in ${environment}.`,
        ),

      changeProgression: (source: Milestone, target: Milestone, intervalMinutes: number) => {
        const transitionCondition = { intervalMinutes };
        return send(
          {
            action: "changeMilestoneProgression",
            payload: { sourceMilestone: source.id, targetMilestone: target.id, transitionCondition },
          },
          () =>
            unwrap(
              api.PUT(`${ENVIRONMENT}/progressions/{sourceMilestoneId}`, {
                params: { path: { ...place, sourceMilestoneId: source.id } },
                body: { targetMilestone: target.id, transitionCondition },
              }),
            ),
          `${source.name} now advances to ${target.name} on its own.`,
        );
      },

      deleteProgression: (source: Milestone) =>
        send(
          { action: "deleteMilestoneProgression", payload: { sourceMilestone: source.id } },
          () =>
            unwrap(
              api.DELETE(`${ENVIRONMENT}/progressions/{sourceMilestoneId}`, {
                params: { path: { ...place, sourceMilestoneId: source.id } },
              }),
            ),
          `${source.name} no longer advances on its own.`,
        ),

      resume: (plan: Plan) =>
        send(
          { action: "resumeMilestoneProgression", payload: { planId: plan.id } },
          () =>
            unwrap(
              api.POST(`${ENVIRONMENT}/progressions/{planId}/resume`, {
                params: { path: { ...place, planId: plan.id } },
              }),
            ),
          `Release plan ${plan.name} resumed.`,
        ),

      putPlanSafeguard: (plan: Plan, safeguard: SafeguardInput) =>
        send(
          { action: "changeReleasePlanSafeguard", payload: { planId: plan.id, safeguard } },
          () => unwrap(api.PUT(`${PLAN}/safeguards`, { params: ofPlan(plan), body: safeguard })),
          `Safeguard of release plan ${plan.name} saved.`,
        ),

      deletePlanSafeguard: (plan: Plan, safeguard: Safeguard) =>
        send(
          { action: "deleteReleasePlanSafeguard", payload: { planId: plan.id, safeguardId: safeguard.id } },
          () =>
            unwrap(
              api.DELETE(`${PLAN}/safeguards/{safeguardId}`, {
                params: { path: { ...place, planId: plan.id, safeguardId: safeguard.id } },
              }),
            ),
          `Safeguard of release plan ${plan.name} removed.`,
        ),

      putEnvironmentSafeguard: (safeguard: SafeguardInput) =>
        send(
          { action: "changeFeatureEnvSafeguard", payload: { safeguard } },
          () => unwrap(api.PUT(`${ENVIRONMENT}/safeguards`, { params: path, body: safeguard })),
          `Safeguard of ${feature} in ${environment} saved.`,
        ),

      deleteEnvironmentSafeguard: (safeguard: Safeguard) =>
        send(
          { action: "deleteFeatureEnvSafeguard", payload: { safeguardId: safeguard.id } },
          () =>
            unwrap(
              api.DELETE(`${ENVIRONMENT}/safeguards/{safeguardId}`, {
                params: { path: { ...place, safeguardId: safeguard.id } },
              }),
            ),
          `Safeguard of ${feature} in ${environment} removed.`,
        ),
    };
  }, [gate, send, place, environment, feature]);
}

export type ReleaseWrites = ReturnType<typeof useReleaseWrites>;
