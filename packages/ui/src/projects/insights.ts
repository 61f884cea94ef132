import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { plural } from "../components/plural";
import { queryKeys } from "../query-keys";

const fetchInsights = (projectId: string) =>
  unwrap(api.GET("/api/admin/projects/{projectId}/insights", { params: { path: { projectId } } }));
const fetchHealthReport = (projectId: string) =>
  unwrap(api.GET("/api/admin/projects/{projectId}/health-report", { params: { path: { projectId } } }));

export type Insights = Awaited<ReturnType<typeof fetchInsights>>;
export type HealthReport = Awaited<ReturnType<typeof fetchHealthReport>>;

export function useInsights(projectId: string) {
  return useQuery({
    queryKey: queryKeys.projects.insights(projectId),
    queryFn: () => fetchInsights(projectId),
  });
}

export function useHealthReport(projectId: string) {
  return useQuery({
    queryKey: queryKeys.projects.healthReport(projectId),
    queryFn: () => fetchHealthReport(projectId),
  });
}

/** One figure of the dashboard: what it counts, its value, and how it compares. */
export interface Figure {
  label: string;
  value: string;
  detail: string;
}

/** The last 30 days against the 30 before them, as a sentence. */
export function trend(current: number, past: number): string {
  const change = current - past;
  if (change === 0) return "as many as the 30 days before";
  return `${change > 0 ? "+" : "−"}${Math.abs(change)} on the 30 days before`;
}

/**
 * The dashboard's figures, from the service's insights: health and technical debt, flags by
 * state, time to production, and the last 30 days' flags created and archived, activity and
 * members, each against the 30 days before.
 */
export function insightFigures(insights: Insights): Figure[] {
  const { stats, health } = insights;
  return [
    {
      label: "Health",
      value: `${health.rating}%`,
      detail: `${plural(health.activeCount, "active flag")}, ${health.potentiallyStaleCount} potentially stale, ${health.staleCount} stale`,
    },
    {
      label: "Technical debt",
      value: `${insights.technicalDebt.rating}%`,
      detail: "Share of flags that are stale or past their expected lifetime",
    },
    {
      label: "Time to production",
      value:
        insights.leadTime.projectAverage === 0 ? "None yet" : plural(insights.leadTime.projectAverage, "day"),
      detail:
        insights.leadTime.features.length === 0
          ? "No flag has been enabled in production"
          : `Average over ${plural(insights.leadTime.features.length, "flag")} enabled in production`,
    },
    {
      label: "Flags created",
      value: String(stats.createdCurrentWindow),
      detail: `Last 30 days, ${trend(stats.createdCurrentWindow, stats.createdPastWindow)}`,
    },
    {
      label: "Flags archived",
      value: String(stats.archivedCurrentWindow),
      detail: `Last 30 days, ${trend(stats.archivedCurrentWindow, stats.archivedPastWindow)}`,
    },
    {
      label: "Activity",
      value: plural(stats.projectActivityCurrentWindow, "change"),
      detail: `Last 30 days, ${trend(stats.projectActivityCurrentWindow, stats.projectActivityPastWindow)}`,
    },
    {
      label: "Members",
      value: String(insights.members.currentMembers),
      detail: `${insights.members.change === 0 ? "None" : `+${insights.members.change}`} added in the last 30 days`,
    },
  ];
}

/** Flags by state for the donut: those in good standing, potentially stale, and stale. */
export function flagStates(health: Insights["health"]) {
  return [
    {
      name: "Healthy",
      value: Math.max(0, health.activeCount - health.potentiallyStaleCount),
      color: "green.6",
    },
    { name: "Potentially stale", value: health.potentiallyStaleCount, color: "yellow.6" },
    { name: "Stale", value: health.staleCount, color: "red.6" },
  ];
}
