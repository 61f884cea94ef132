import { useQuery } from "@tanstack/react-query";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const METRICS = "/api/admin/impact-metrics/" as const;
const fetchMetadata = () => unwrap(api.GET("/api/admin/impact-metrics/metadata"));

export type MetricInfo = Awaited<ReturnType<typeof fetchMetadata>>["metrics"][number];
export type SeriesQuery = NonNullable<paths[typeof METRICS]["get"]["parameters"]["query"]>;
const fetchSeries = (query: SeriesQuery) => unwrap(api.GET(METRICS, { params: { query } }));
export type SeriesAnswer = Awaited<ReturnType<typeof fetchSeries>>;

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
