import "@mantine/charts/styles.css";
import { LineChart } from "@mantine/charts";
import { Loader, Stack, Text } from "@mantine/core";
import { describeFailure } from "../../components/notify";
import { type SeriesAnswer, useMetricSeries } from "../../impact-metrics/queries";
import type { Safeguard } from "../queries";
import { AGGREGATIONS, TIME_RANGES } from "./safeguard-draft";

const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 });
const COLORS = ["blue.6", "teal.6", "grape.6", "orange.6", "cyan.6", "pink.6"];

/** A series' name on the chart: its labels, or "value" when it has none. */
const seriesName = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([label, value]) => `${label}=${value}`)
    .join(", ") || "value";

const timeLabel = (seconds: number, long: boolean) =>
  new Date(seconds * 1000).toLocaleString(
    undefined,
    long ? { month: "short", day: "numeric", hour: "2-digit" } : { hour: "2-digit", minute: "2-digit" },
  );

/** The answer's series as rows of a chart, one a step, a column a series. */
export function chartRows(answer: SeriesAnswer, long: boolean) {
  const names = answer.series.map((series) => seriesName(series.metric));
  const rows = new Map<number, Record<string, number | string>>();
  answer.series.forEach((series, index) => {
    for (const [time, value] of series.data) {
      const at = Number(time);
      const row = rows.get(at) ?? { time: timeLabel(at, long) };
      row[names[index]!] = Number(value);
      rows.set(at, row);
    }
  });
  return { names, rows: [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row) };
}

/**
 * The safeguard's metric over its chart range, aggregated as it is, with its threshold drawn
 * across: how close the release is to being stopped. A sentence says the same for those who
 * do not see the chart.
 */
export function SafeguardChart({ safeguard }: { safeguard: Safeguard }) {
  const { impactMetric, triggerCondition } = safeguard;
  const series = useMetricSeries({
    metricName: impactMetric.metricName,
    range: impactMetric.timeRange,
    aggregationMode: impactMetric.aggregationMode,
    labels: JSON.stringify(impactMetric.labelSelectors),
    mode: "display",
  });
  if (series.isPending) return <Loader size="sm" aria-label="Loading the safeguard's metric" />;
  if (series.isError) {
    return (
      <Text size="sm" c="red">
        The metric could not be read: {describeFailure(series.error)}
      </Text>
    );
  }
  const long = impactMetric.timeRange === "week" || impactMetric.timeRange === "month";
  const { names, rows } = chartRows(series.data, long);
  const range = TIME_RANGES[impactMetric.timeRange].toLowerCase();
  const mode = AGGREGATIONS[impactMetric.aggregationMode].toLowerCase();
  const threshold = `${triggerCondition.operator} ${number.format(triggerCondition.threshold)}`;
  if (rows.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No SDK reported {impactMetric.metricName} in the {range}.
      </Text>
    );
  }
  const latest = rows[rows.length - 1]!;
  const summary = names
    .map((name) => `${name === "value" ? "" : `${name}: `}${number.format(Number(latest[name] ?? 0))}`)
    .join("; ");

  return (
    <Stack gap={4}>
      <Text size="sm">
        The {mode} of {impactMetric.metricName} in the {range}, a point every {series.data.step}; the latest{" "}
        {summary}. The safeguard acts at {threshold}.
      </Text>
      {/* The sentence above says what the chart shows. */}
      <div aria-hidden>
        <LineChart
          h={160}
          data={rows}
          dataKey="time"
          withDots={rows.length < 30}
          connectNulls
          series={names.map((name, index) => ({ name, color: COLORS[index % COLORS.length]! }))}
          // Extending the axis to the threshold keeps the line in sight however far the values are from it.
          referenceLines={[
            {
              y: triggerCondition.threshold,
              label: `Threshold ${threshold}`,
              color: "red.6",
              ifOverflow: "extendDomain",
            },
          ]}
          withLegend={names.length > 1}
        />
      </div>
    </Stack>
  );
}
