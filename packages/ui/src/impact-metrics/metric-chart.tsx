import "@mantine/charts/styles.css";
import { LineChart } from "@mantine/charts";
import { Loader, Stack, Text } from "@mantine/core";
import { describeFailure } from "../components/notify";
import { AGGREGATIONS, type MetricQuery, TIME_RANGES } from "./metric-draft";
import { type SeriesAnswer, useMetricSeries } from "./queries";

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
 * What the chart shows, for those who do not see it: each series' latest value and its highest
 * in the range ("the latest 0, the highest 7"), so a value reported a step ago is still said.
 */
export function seriesSummary(names: string[], rows: Record<string, number | string>[]): string {
  return names
    .map((name) => {
      const values = rows.map((row) => row[name]).filter((value) => typeof value === "number");
      const latest = number.format(Number(rows[rows.length - 1]?.[name] ?? 0));
      const highest = number.format(values.length > 0 ? Math.max(...values) : 0);
      return `${name === "value" ? "" : `${name}: `}the latest ${latest}, the highest ${highest}`;
    })
    .join("; ");
}

/** A value drawn across the chart, such as a safeguard's threshold, and the sentence that says it. */
export interface ReferenceLine {
  y: number;
  label: string;
  sentence: string;
}

/**
 * An impact metric over its range, aggregated as asked, as a line a series (asked again every
 * `refetchInterval` ms), with a sentence that says what it shows for those who do not see it.
 * A `reference` value is drawn across it, and the axis stretched to keep it in sight.
 */
export function MetricChart({
  metric,
  reference,
  yAxisMin,
  refetchInterval,
  height = 160,
  loadingLabel = `Loading ${metric.metricName}`,
}: {
  metric: MetricQuery;
  reference?: ReferenceLine | undefined;
  /** "zero" starts the value axis at 0; "auto" fits it to the values; left out, the chart's default. */
  yAxisMin?: "auto" | "zero" | undefined;
  refetchInterval?: number;
  height?: number;
  loadingLabel?: string;
}) {
  const series = useMetricSeries(
    {
      metricName: metric.metricName,
      range: metric.timeRange,
      aggregationMode: metric.aggregationMode,
      labels: JSON.stringify(metric.labelSelectors),
      mode: "display",
    },
    refetchInterval,
  );
  if (series.isPending) return <Loader size="sm" aria-label={loadingLabel} />;
  if (series.isError) {
    return (
      <Text size="sm" c="red">
        The metric could not be read: {describeFailure(series.error)}
      </Text>
    );
  }
  const long = metric.timeRange === "week" || metric.timeRange === "month";
  const { names, rows } = chartRows(series.data, long);
  const range = TIME_RANGES[metric.timeRange].toLowerCase();
  const mode = AGGREGATIONS[metric.aggregationMode].toLowerCase();
  if (rows.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No SDK reported {metric.metricName} in the {range}.
      </Text>
    );
  }

  return (
    <Stack gap={4}>
      <Text size="sm">
        The {mode} of {metric.metricName} in the {range}, a point every {series.data.step};{" "}
        {seriesSummary(names, rows)}.{reference && ` ${reference.sentence}`}
      </Text>
      {/* The sentence above says what the chart shows. */}
      <div aria-hidden>
        <LineChart
          h={height}
          data={rows}
          dataKey="time"
          withDots={rows.length < 30}
          connectNulls
          series={names.map((name, index) => ({ name, color: COLORS[index % COLORS.length]! }))}
          // Extending the axis to the reference keeps the line in sight however far the values are from it.
          referenceLines={
            reference
              ? [{ y: reference.y, label: reference.label, color: "red.6", ifOverflow: "extendDomain" }]
              : undefined
          }
          yAxisProps={
            yAxisMin === undefined
              ? undefined
              : { domain: yAxisMin === "zero" ? [0, "auto"] : ["auto", "auto"] }
          }
          withLegend={names.length > 1}
        />
      </div>
    </Stack>
  );
}
