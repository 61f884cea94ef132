import type { FlagChartInput, MetricInfo } from "./queries";

export type AggregationMode = FlagChartInput["aggregationMode"];
export type TimeRange = FlagChartInput["timeRange"];

/** What a chart or a safeguard reads: a metric, aggregated, over a range, of the series its labels keep. */
export type MetricQuery = Pick<
  FlagChartInput,
  "metricName" | "timeRange" | "aggregationMode" | "labelSelectors"
>;

export const AGGREGATIONS: Record<AggregationMode, string> = {
  rps: "Rate per second",
  count: "Count",
  avg: "Average",
  sum: "Sum",
  p50: "Median (p50)",
  p95: "95th percentile (p95)",
  p99: "99th percentile (p99)",
};

/** The aggregations that mean something for a metric of each type, as the service computes them. */
const BY_TYPE: Record<MetricInfo["type"], AggregationMode[]> = {
  counter: ["rps", "count"],
  gauge: ["avg", "sum"],
  histogram: ["p50", "p95", "p99"],
};

/** The aggregations offered for a metric: those of its type, or all while its type is not known. */
export const aggregationsFor = (type: MetricInfo["type"] | undefined): AggregationMode[] =>
  type ? BY_TYPE[type] : (Object.keys(AGGREGATIONS) as AggregationMode[]);

export const TIME_RANGES: Record<TimeRange, string> = {
  hour: "Last hour",
  day: "Last day",
  week: "Last week",
  month: "Last month",
};

/** One label filter: the series kept are those whose `label` is one of `values`. */
export interface LabelFilter {
  label: string;
  values: string[];
}

/** The metric part of a form: what `MetricFields` and `LabelFilterFields` edit. */
export type MetricDraft = {
  metricName: string;
  aggregationMode: AggregationMode;
  timeRange: TimeRange;
  labels: LabelFilter[];
};

/** A metric as its form starts: a stored one, or a count over the last hour of every series. */
export function metricDraftOf(metric?: MetricQuery): MetricDraft {
  if (!metric) return { metricName: "", aggregationMode: "count", timeRange: "hour", labels: [] };
  return {
    metricName: metric.metricName,
    aggregationMode: metric.aggregationMode,
    timeRange: metric.timeRange,
    labels: Object.entries(metric.labelSelectors).map(([label, values]) => ({ label, values })),
  };
}

/** The rules of a metric's fields, by field, as @mantine/form applies them; `missing` is said of an empty metric. */
export const metricRules = (missing: string) => ({
  metricName: (name: string) => (name.trim() === "" ? missing : null),
  labels: {
    label: (label: string, values: Pick<MetricDraft, "labels">) => {
      if (label.trim() === "") return "Name the label";
      const same = values.labels.filter((filter) => filter.label.trim() === label.trim());
      return same.length > 1 ? "This label is filtered twice" : null;
    },
    values: (picked: string[]) => (picked.length === 0 ? "Pick at least one value" : null),
  },
});

/** The metric as the service takes it; only once the rules pass. */
export const metricBody = (draft: MetricDraft): MetricQuery => ({
  metricName: draft.metricName.trim(),
  timeRange: draft.timeRange,
  aggregationMode: draft.aggregationMode,
  labelSelectors: Object.fromEntries(draft.labels.map((filter) => [filter.label.trim(), filter.values])),
});

/** Label filters in a few words: "appName: shop or till; environment: production"; "" for none. */
export const describeFilters = (labelSelectors: MetricQuery["labelSelectors"]): string =>
  Object.entries(labelSelectors)
    .map(([label, values]) => `${label}: ${values.join(" or ")}`)
    .join("; ");

/** What is charted, in a few words: "Count of unleash_counter_purchases". */
export const describeMetric = (metric: Pick<MetricQuery, "metricName" | "aggregationMode">): string =>
  `${AGGREGATIONS[metric.aggregationMode] ?? metric.aggregationMode} of ${metric.metricName}`;
