import { type PlanPlace, useEnvironmentSafeguards, usePlans, useTemplates } from "../release-plans/queries";
import type { ReleaseContext } from "./release-diff";

/**
 * What a request's release changes to one flag are read against: its plan and safeguard in
 * the request's environment as they are now, and the templates (archived ones too) by name.
 * Asked only when the request holds such a change.
 */
export function useReleaseContext(place: PlanPlace, enabled: boolean): ReleaseContext {
  const templates = useTemplates(true, enabled);
  const plans = usePlans(place, enabled);
  const safeguards = useEnvironmentSafeguards(place, enabled);
  return {
    plan: plans.data?.[0],
    environmentSafeguard: safeguards.data?.[0],
    templates: templates.data,
  };
}
