import { type ImpactLabels, type ImpactMetric, type ImpactMetricType, labelsKey } from "@signalbox/protocol";
import { isValidName, type Origin, sanitize, seriesLabels } from "./names.js";

/** What one report (or several, added up) brings to one series. */
export interface SeriesEntry {
  name: string;
  type: ImpactMetricType;
  help: string;
  labels: ImpactLabels;
  /** The labels' canonical text: with the name, what the series is known by. */
  key: string;
  /** A counter's increase, or a gauge's value. */
  value: number;
  /** A histogram's observations, their sum, and its buckets' counts by upper bound ("+Inf" last). */
  count: number;
  sum: number;
  buckets: Record<string, number>;
}

export const entryKey = (entry: { name: string; key: string }) => `${entry.name}\u0000${entry.key}`;

/** Adds `next` to `into`: counters and histograms add up, a gauge takes the later value. */
export function merge(into: SeriesEntry, next: SeriesEntry): void {
  if (into.type === "gauge") {
    into.value = next.value;
    return;
  }
  into.value += next.value;
  into.count += next.count;
  into.sum += next.sum;
  for (const [le, count] of Object.entries(next.buckets)) into.buckets[le] = (into.buckets[le] ?? 0) + count;
}

/** Entries added up per series, in the order each series was first seen. */
export function mergeAll(entries: Iterable<SeriesEntry>): SeriesEntry[] {
  const merged = new Map<string, SeriesEntry>();
  for (const entry of entries) {
    const key = entryKey(entry);
    const seen = merged.get(key);
    if (seen) merge(seen, entry);
    else merged.set(key, { ...entry, buckets: { ...entry.buckets } });
  }
  return [...merged.values()];
}

/**
 * A report's metrics as series entries, named and labelled as they are stored (see
 * `seriesLabels`); metrics whose name cannot be made valid are dropped, as in the reference.
 */
export function entriesOf(metrics: readonly ImpactMetric[], origin: Origin): SeriesEntry[] {
  const entries: SeriesEntry[] = [];
  for (const metric of metrics) {
    const name = sanitize(metric.name);
    if (!isValidName(name)) continue;
    const base = { name, type: metric.type, help: metric.help };
    if (metric.type === "histogram") {
      for (const sample of metric.samples) {
        const labels = seriesLabels(sample.labels, metric.type, origin);
        const buckets: Record<string, number> = {};
        for (const bucket of sample.buckets) {
          const le = String(bucket.le);
          buckets[le] = (buckets[le] ?? 0) + bucket.count;
        }
        const { count, sum } = sample;
        entries.push({ ...base, labels, key: labelsKey(labels), value: 0, count, sum, buckets });
      }
    } else {
      for (const sample of metric.samples) {
        const labels = seriesLabels(sample.labels, metric.type, origin);
        entries.push({
          ...base,
          labels,
          key: labelsKey(labels),
          value: sample.value,
          count: 0,
          sum: 0,
          buckets: {},
        });
      }
    }
  }
  return mergeAll(entries);
}
