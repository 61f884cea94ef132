import type { ImpactLabels, ImpactMetricType } from "@signalbox/protocol";
import { entryKey, merge, type SeriesEntry } from "./entries.js";

// Rendered here rather than through prom-client: its metrics fix their label names when made,
// where SDKs bring new labels (a flag each) at any time, and the reference, which uses it,
// re-creates a metric for each new label name and so loses its totals; and its histograms
// only observe values one by one, where SDKs send buckets already counted (the reference
// wrote a BatchHistogram to fake one). The lines are appended to the registry's.

interface Exposed {
  type: ImpactMetricType;
  help: string;
  series: Map<string, SeriesEntry>;
}

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** `origin` and `metric_type` first, as the reference writes them, then the others by name. */
function labelText(labels: ImpactLabels, extra?: [string, string]): string {
  const { origin, metric_type, ...rest } = labels;
  const pairs: [string, string][] = [];
  if (origin !== undefined) pairs.push(["origin", origin]);
  if (metric_type !== undefined) pairs.push(["metric_type", metric_type]);
  for (const key of Object.keys(rest).sort()) if (!(extra && key === extra[0])) pairs.push([key, rest[key]!]);
  if (extra) pairs.push(extra);
  return `{${pairs.map(([key, value]) => `${key}="${escapeValue(value)}"`).join(",")}}`;
}

/** The names a metric takes in the exposition: a histogram's three series besides its own. */
export const familyNames = (name: string, type: string): string[] =>
  type === "histogram" ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];

/**
 * What this instance received since it started, for Prometheus: counters and histograms as
 * running totals, gauges at their last value. Only series the store accepted are kept, and
 * never more than the limits allow, so it is bounded as the store is.
 */
export class Exposition {
  private readonly metrics = new Map<string, Exposed>();

  constructor(private readonly limits: { maxMetrics: number; maxSeriesPerMetric: number }) {}

  record(entries: readonly SeriesEntry[]): void {
    for (const entry of entries) {
      let metric = this.metrics.get(entry.name);
      if (!metric) {
        if (this.metrics.size >= this.limits.maxMetrics) continue;
        metric = { type: entry.type, help: entry.help, series: new Map() };
        this.metrics.set(entry.name, metric);
      }
      // One name, one type in the exposition: the first type seen keeps it.
      if (metric.type !== entry.type) continue;
      const key = entryKey(entry);
      const series = metric.series.get(key);
      if (series) merge(series, entry);
      else if (metric.series.size < this.limits.maxSeriesPerMetric)
        metric.series.set(key, { ...entry, buckets: { ...entry.buckets } });
    }
  }

  /** The text format's lines; metrics whose names `taken` holds (the service's own) are left out. */
  render(taken: ReadonlySet<string>): string {
    const lines: string[] = [];
    for (const [name, metric] of this.metrics) {
      if (familyNames(name, metric.type).some((family) => taken.has(family))) continue;
      lines.push(`# HELP ${name} ${escapeHelp(metric.help)}`, `# TYPE ${name} ${metric.type}`);
      for (const series of metric.series.values()) {
        if (metric.type !== "histogram") {
          lines.push(`${name}${labelText(series.labels)} ${String(series.value)}`);
          continue;
        }
        const bounds = Object.entries(series.buckets).sort(
          ([a], [b]) =>
            (a === "+Inf" ? Number.POSITIVE_INFINITY : Number(a)) -
            (b === "+Inf" ? Number.POSITIVE_INFINITY : Number(b)),
        );
        for (const [le, count] of bounds)
          lines.push(`${name}_bucket${labelText(series.labels, ["le", le])} ${String(count)}`);
        lines.push(`${name}_sum${labelText(series.labels)} ${String(series.sum)}`);
        lines.push(`${name}_count${labelText(series.labels)} ${String(series.count)}`);
      }
    }
    return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }
}
