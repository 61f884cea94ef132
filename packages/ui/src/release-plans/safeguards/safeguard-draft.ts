import type { MetricInfo } from "../../impact-metrics/queries";
import type { SafeguardInput } from "../queries";

type Metric = SafeguardInput["impactMetric"];
export type AggregationMode = Metric["aggregationMode"];
export type TimeRange = Metric["timeRange"];
export type Operator = SafeguardInput["triggerCondition"]["operator"];

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

export const OPERATORS: Record<Operator, string> = { ">": "Above", "<": "Below" };

/** One label filter: the series kept are those whose `label` is one of `values`. */
export interface LabelFilter {
  label: string;
  values: string[];
}

/** A safeguard being edited. */
export type SafeguardDraft = {
  metricName: string;
  aggregationMode: AggregationMode;
  timeRange: TimeRange;
  operator: Operator;
  threshold: number | "";
  labels: LabelFilter[];
};

/** A safeguard as its form starts: a stored one, or one that stops at the first error counted. */
export function safeguardDraftOf(
  safeguard?: Pick<SafeguardInput, "impactMetric" | "triggerCondition">,
): SafeguardDraft {
  if (!safeguard) {
    return {
      metricName: "",
      aggregationMode: "count",
      timeRange: "hour",
      operator: ">",
      threshold: 0,
      labels: [],
    };
  }
  const { impactMetric, triggerCondition } = safeguard;
  return {
    metricName: impactMetric.metricName,
    aggregationMode: impactMetric.aggregationMode,
    timeRange: impactMetric.timeRange,
    operator: triggerCondition.operator,
    threshold: triggerCondition.threshold,
    labels: Object.entries(impactMetric.labelSelectors).map(([label, values]) => ({ label, values })),
  };
}

/** The rules of the form, by field, as @mantine/form applies them. */
export const safeguardRules = {
  metricName: (name: string) => (name.trim() === "" ? "Pick the metric to watch" : null),
  threshold: (threshold: number | "") => (threshold === "" ? "Give the value that stops the release" : null),
  labels: {
    label: (label: string, values: SafeguardDraft) => {
      if (label.trim() === "") return "Name the label";
      const same = values.labels.filter((filter) => filter.label.trim() === label.trim());
      return same.length > 1 ? "This label is filtered twice" : null;
    },
    values: (picked: string[]) => (picked.length === 0 ? "Pick at least one value" : null),
  },
};

/** The safeguard as PUT takes it; only once the rules pass. */
export function safeguardBody(draft: SafeguardDraft): SafeguardInput {
  return {
    impactMetric: {
      metricName: draft.metricName.trim(),
      timeRange: draft.timeRange,
      aggregationMode: draft.aggregationMode,
      labelSelectors: Object.fromEntries(draft.labels.map((filter) => [filter.label.trim(), filter.values])),
    },
    triggerCondition: { operator: draft.operator, threshold: Number(draft.threshold) },
  };
}

const number = new Intl.NumberFormat();

/** What a safeguard watches, in one line: "count of unleash_counter_errors above 0 (appName: shop)". */
export function describeSafeguard(
  safeguard: Pick<SafeguardInput, "impactMetric" | "triggerCondition">,
): string {
  const { impactMetric, triggerCondition } = safeguard;
  const mode = AGGREGATIONS[impactMetric.aggregationMode] ?? impactMetric.aggregationMode;
  const filters = Object.entries(impactMetric.labelSelectors)
    .map(([label, values]) => `${label}: ${values.join(" or ")}`)
    .join("; ");
  const operator = OPERATORS[triggerCondition.operator]?.toLowerCase() ?? triggerCondition.operator;
  return `${mode} of ${impactMetric.metricName} ${operator} ${number.format(triggerCondition.threshold)}${filters ? ` (${filters})` : ""}`;
}
