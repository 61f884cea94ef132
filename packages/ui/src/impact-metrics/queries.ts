import { useQuery } from "@tanstack/react-query";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const METRICS = "/api/admin/impact-metrics/" as const;
const CHARTS = "/api/admin/projects/{projectId}/features/{featureName}/impact-metrics/config" as const;
const fetchMetadata = () => unwrap(api.GET("/api/admin/impact-metrics/metadata"));

export type MetricInfo = Awaited<ReturnType<typeof fetchMetadata>>["metrics"][number];
export type SeriesQuery = NonNullable<paths[typeof METRICS]["get"]["parameters"]["query"]>;
const fetchSeries = (query: SeriesQuery) => unwrap(api.GET(METRICS, { params: { query } }));
export type SeriesAnswer = Awaited<ReturnType<typeof fetchSeries>>;

/** Where a flag's charts live. */
export interface ChartPlace {
  projectId: string;
  featureName: string;
}

const fetchCharts = (place: ChartPlace) => unwrap(api.GET(CHARTS, { params: { path: place } }));
/** An impact metric chart on a flag, as the service keeps it. */
export type FlagChart = Awaited<ReturnType<typeof fetchCharts>>["configs"][number];
/** A chart as PUT takes it: with the `id` of the flag's chart it replaces, or without for a new one. */
export type FlagChartInput = paths[typeof CHARTS]["put"]["requestBody"]["content"]["application/json"];

/** The impact metrics SDKs have reported, with their type and the values seen of each label. */
export function useMetricsMetadata() {
  return useQuery({
    queryKey: queryKeys.impactMetrics.metadata(),
    queryFn: fetchMetadata,
    staleTime: 30_000,
  });
}

/** A metric's values over a time range, aggregated as asked: what a chart draws. */
export function useMetricSeries(query: SeriesQuery, refetchInterval = 15_000) {
  return useQuery({
    queryKey: queryKeys.impactMetrics.series(query),
    queryFn: () => fetchSeries(query),
    refetchInterval,
  });
}

/** The impact metric charts someone put on the flag, in the order they were made. */
export function useFlagCharts(place: ChartPlace, enabled = true) {
  return useQuery({
    queryKey: queryKeys.flags.impactCharts(place.projectId, place.featureName),
    queryFn: () => fetchCharts(place),
    enabled,
  });
}

/** Puts a chart on the flag, or replaces the flag's chart of the `id` given. */
export const saveFlagChart = (place: ChartPlace, chart: FlagChartInput) =>
  unwrap(api.PUT(CHARTS, { params: { path: place }, body: chart }));

/** Takes a chart off the flag. */
export const removeFlagChart = (place: ChartPlace, id: string) =>
  unwrap(api.DELETE(`${CHARTS}/{id}`, { params: { path: { ...place, id } } }));
