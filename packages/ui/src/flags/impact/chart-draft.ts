import {
  describeMetric,
  type MetricDraft,
  metricBody,
  metricDraftOf,
  metricRules,
} from "../../impact-metrics/metric-draft";
import type { FlagChart, FlagChartInput } from "../../impact-metrics/queries";

/** A flag's chart being edited: its metric, its title (empty: named after the metric), its axis. */
export type ChartDraft = MetricDraft & {
  title: string;
  fromZero: boolean;
};

/** A chart as its form starts: a stored one, or a count over the last hour. */
export function chartDraftOf(chart?: FlagChart): ChartDraft {
  return {
    ...metricDraftOf(chart),
    title: chart?.title ?? "",
    fromZero: chart?.yAxisMin === "zero",
  };
}

export const chartRules = metricRules("Pick the metric to chart");

/** The chart as PUT takes it, replacing the chart `id` when given; only once the rules pass. */
export function chartBody(draft: ChartDraft, id?: string): FlagChartInput {
  const title = draft.title.trim();
  return {
    ...(id === undefined ? {} : { id }),
    ...metricBody(draft),
    ...(title === "" ? {} : { title }),
    yAxisMin: draft.fromZero ? "zero" : "auto",
  };
}

/** A chart's title: the one it was given, else its metric and aggregation. */
export const chartTitle = (chart: Pick<FlagChart, "title" | "metricName" | "aggregationMode">): string =>
  chart.title?.trim() || describeMetric(chart);
