import { Type } from "typebox";

// Impact metrics: counters, gauges and histograms an application defines through its SDK
// (`unleash.impactMetrics.defineCounter(…)` in the Node SDK 6.12), sent inside the usage
// report as `impactMetrics`. Counters and histograms are what changed since the SDK's last
// report (it clears them once collected, and sends one zero sample with no labels when
// nothing happened); gauges are absolute values. Labels are the SDK's `appName` and
// `environment`, and `{flagName: variant | "enabled" | "disabled"}` for the flags a value
// was recorded under.

export type ImpactMetricType = "counter" | "gauge" | "histogram";
export const IMPACT_METRIC_TYPES: readonly ImpactMetricType[] = ["counter", "gauge", "histogram"];

export type ImpactLabels = Record<string, string>;

export interface NumericSample {
  labels: ImpactLabels;
  value: number;
}

export interface HistogramBucket {
  /** The bucket's upper bound; "+Inf" for the last, which counts every observation. */
  le: number | "+Inf";
  /** Observations at or below `le` (cumulative, as Prometheus counts them). */
  count: number;
}

export interface HistogramSample {
  labels: ImpactLabels;
  count: number;
  sum: number;
  buckets: HistogramBucket[];
}

export type ImpactMetric =
  | { name: string; help: string; type: "counter" | "gauge"; samples: NumericSample[] }
  | { name: string; help: string; type: "histogram"; samples: HistogramSample[] };

/**
 * How the field is declared on the usage report: anything. What it holds is read by
 * `readImpactMetrics`, which keeps the well-formed metrics and samples and drops the rest,
 * so that a malformed metric never costs a report its flag counts (the reference validates
 * them apart from the report too, and answers 202 either way).
 */
export const ImpactMetricsField = Type.Unknown({
  description:
    "Impact metrics: `[{name, help, type: counter|gauge|histogram, samples}]`, a sample being " +
    "`{labels?, value}` (counter deltas since the last report, gauge values) or " +
    "`{labels?, count, sum, buckets: [{le: number|'+Inf', count}]}` (histogram deltas). " +
    "Malformed entries are dropped; the report is accepted either way.",
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Label values are strings on the wire; the SDKs' numbers and booleans are read as their text. */
function readLabels(raw: unknown): ImpactLabels | undefined {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) return undefined;
  const labels: ImpactLabels = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === "string") labels[key] = value;
    else if (finite(value) || typeof value === "boolean") labels[key] = String(value);
    else return undefined;
  }
  return labels;
}

function readNumeric(raw: unknown, type: "counter" | "gauge"): NumericSample | undefined {
  if (!isRecord(raw) || !finite(raw.value)) return undefined;
  // A counter only goes up: what it sends is how much since the last report.
  if (type === "counter" && raw.value < 0) return undefined;
  const labels = readLabels(raw.labels);
  return labels && { labels, value: raw.value };
}

function readHistogram(raw: unknown): HistogramSample | undefined {
  if (!isRecord(raw) || !finite(raw.count) || raw.count < 0 || !finite(raw.sum)) return undefined;
  if (!Array.isArray(raw.buckets) || raw.buckets.length === 0) return undefined;
  const buckets: HistogramBucket[] = [];
  for (const bucket of raw.buckets) {
    if (!isRecord(bucket) || !finite(bucket.count) || bucket.count < 0) return undefined;
    const le = bucket.le === "+Inf" || bucket.le === "Infinity" ? "+Inf" : bucket.le;
    if (le !== "+Inf" && !finite(le)) return undefined;
    buckets.push({ le, count: bucket.count });
  }
  const labels = readLabels(raw.labels);
  return labels && { labels, count: raw.count, sum: raw.sum, buckets };
}

/**
 * The well-formed metrics of a report's `impactMetrics`, each with its well-formed samples:
 * a metric needs a name, a help text (the reference ignores a metric without one) and a
 * known type; a sample needs finite numbers (a counter's not negative) and labels whose
 * values are text or numbers. Anything else, the field itself included, is dropped.
 */
export function readImpactMetrics(raw: unknown): ImpactMetric[] {
  if (!Array.isArray(raw)) return [];
  const metrics: ImpactMetric[] = [];
  for (const entry of raw) {
    if (!isRecord(entry) || !Array.isArray(entry.samples)) continue;
    const { name, help, type } = entry;
    if (typeof name !== "string" || name === "" || typeof help !== "string" || help === "") continue;
    if (type === "counter" || type === "gauge") {
      const samples = entry.samples.flatMap((sample) => readNumeric(sample, type) ?? []);
      if (samples.length > 0) metrics.push({ name, help, type, samples });
    } else if (type === "histogram") {
      const samples = entry.samples.flatMap((sample) => readHistogram(sample) ?? []);
      if (samples.length > 0) metrics.push({ name, help, type, samples });
    }
  }
  return metrics;
}

/** Labels in one canonical text, the same whatever order they came in: how a series is known. */
export function labelsKey(labels: ImpactLabels): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((key) => [key, labels[key]]),
  );
}
