import { useQuery } from "@tanstack/react-query";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const TEMPLATES = "/api/admin/release-plan-templates" as const;
const ENVIRONMENT =
  "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}" as const;

const fetchTemplates = (includeArchived: boolean) =>
  unwrap(api.GET(TEMPLATES, { params: { query: { includeArchived } } }));

export type Template = Awaited<ReturnType<typeof fetchTemplates>>[number];
export type Milestone = Template["milestones"][number];
export type MilestoneStrategy = Milestone["strategies"][number];
/** A template as POST and PUT take it. */
export type TemplateInput = paths[typeof TEMPLATES]["post"]["requestBody"]["content"]["application/json"];

/** Where a plan lives: a flag's environment. */
export interface PlanPlace {
  projectId: string;
  featureName: string;
  environment: string;
}

const fetchPlans = (place: PlanPlace) =>
  unwrap(api.GET(`${ENVIRONMENT}/release-plans`, { params: { path: place } }));
const fetchEnvironmentSafeguards = (place: PlanPlace) =>
  unwrap(api.GET(`${ENVIRONMENT}/safeguards`, { params: { path: place } }));

export type Plan = Awaited<ReturnType<typeof fetchPlans>>[number];
export type PlanSafeguard = Plan["safeguards"][number];
export type EnvironmentSafeguard = Awaited<ReturnType<typeof fetchEnvironmentSafeguards>>[number];
export type Safeguard = PlanSafeguard | EnvironmentSafeguard;
/** A safeguard as PUT takes it, on a plan or on an environment. */
export type SafeguardInput =
  paths[`${typeof ENVIRONMENT}/safeguards`]["put"]["requestBody"]["content"]["application/json"];

/** How often a flag page asks again for its plans and safeguards: they move on their own. */
export const RELEASE_REFRESH_MS = 5_000;

/** The release templates (archived ones too when asked), as the templates screen and "Add release plan" list them. */
export function useTemplates(includeArchived = false, enabled = true) {
  return useQuery({
    queryKey: queryKeys.releaseTemplates.list(includeArchived),
    queryFn: () => fetchTemplates(includeArchived),
    staleTime: 30_000,
    enabled,
  });
}

/**
 * The flag's release plan in an environment (none or one). A plan's milestones hand over and
 * its safeguard pauses it without anyone doing anything: asked again every few seconds while
 * the page is open, so the timeline follows.
 */
export function usePlans(place: PlanPlace, enabled = true) {
  return useQuery({
    queryKey: queryKeys.flags.releasePlans(place.projectId, place.featureName, place.environment),
    queryFn: () => fetchPlans(place),
    refetchInterval: RELEASE_REFRESH_MS,
    enabled,
  });
}

/** The environment's own safeguard (none or one), asked again as plans are: it may switch the flag off. */
export function useEnvironmentSafeguards(place: PlanPlace, enabled = true) {
  return useQuery({
    queryKey: queryKeys.flags.safeguards(place.projectId, place.featureName, place.environment),
    queryFn: () => fetchEnvironmentSafeguards(place),
    refetchInterval: RELEASE_REFRESH_MS,
    enabled,
  });
}
