import {
  type HistogramBucket,
  type ImpactLabels,
  type ImpactMetric,
  type ImpactMetricType,
  labelsKey,
} from "@signalbox/protocol";
import type { ReportBudget } from "./budget.js";

interface Pending {
  name: string;
  help: string;
  type: ImpactMetricType;
  labels: ImpactLabels;
  value: number;
  count: number;
  sum: number;
  /** Histogram bucket counts by upper bound, written as the SDK wrote it ("+Inf" for the last). */
  buckets: Map<string, number>;
}

// Clients choose names and labels: bounds keep a misbehaving one from growing memory without end.
const MAX_SERIES = 10_000;
/** What a series adds to the report's JSON besides its name and labels. */
const SERIES_BYTES = 64;
const BUCKET_BYTES = 24;

const boundOf = (le: string): HistogramBucket["le"] => (le === "+Inf" ? "+Inf" : Number(le));

/**
 * The impact metrics clients report through the proxy, sent upstream in the proxy's own
 * usage report, each sample labelled `origin: proxy` unless it names its own origin. Between
 * sends, what arrives for the same metric and labels is added up (counters and histograms,
 * whose samples are what changed since the client's last report) or replaced (gauges, whose
 * samples are values), so the upstream receives every change exactly once. New series take
 * room from the budget for pending reports.
 */
export class ImpactMetricsAggregator {
  private series = new Map<string, Pending>();
  private reserved = 0;

  constructor(private readonly budget: ReportBudget) {}

  /** Adds a client's metrics; `defaults` label the samples that do not say (the client token's environment). */
  add(metrics: readonly ImpactMetric[], defaults: ImpactLabels = {}): void {
    this.merge(metrics, defaults, false);
  }

  /** Everything added since the last take, by metric; undefined when nothing was. */
  take(): ImpactMetric[] | undefined {
    if (this.series.size === 0) return undefined;
    const byMetric = new Map<string, ImpactMetric>();
    for (const pending of this.series.values()) {
      const key = `${pending.type} ${pending.name}`;
      let metric = byMetric.get(key);
      if (!metric) {
        metric =
          pending.type === "histogram"
            ? { name: pending.name, help: pending.help, type: "histogram", samples: [] }
            : { name: pending.name, help: pending.help, type: pending.type, samples: [] };
        byMetric.set(key, metric);
      }
      if (metric.type === "histogram") {
        metric.samples.push({
          labels: pending.labels,
          count: pending.count,
          sum: pending.sum,
          buckets: [...pending.buckets].map(([le, count]) => ({ le: boundOf(le), count })),
        });
      } else {
        metric.samples.push({ labels: pending.labels, value: pending.value });
      }
    }
    this.series = new Map();
    this.budget.release(this.reserved);
    this.reserved = 0;
    return [...byMetric.values()];
  }

  /**
   * Puts back what could not be sent: counters and histograms add to what arrived since; a
   * gauge keeps a value that arrived since, being newer.
   */
  restore(metrics: readonly ImpactMetric[]): void {
    this.merge(metrics, {}, true);
  }

  private merge(metrics: readonly ImpactMetric[], defaults: ImpactLabels, older: boolean): void {
    for (const metric of metrics) {
      for (const sample of metric.samples) {
        const labels: ImpactLabels = {
          ...defaults,
          ...sample.labels,
          origin: sample.labels.origin || "proxy",
        };
        const key = `${metric.type} ${metric.name} ${labelsKey(labels)}`;
        let pending = this.series.get(key);
        if (!pending) {
          const bytes =
            SERIES_BYTES + key.length + ("buckets" in sample ? sample.buckets.length * BUCKET_BYTES : 0);
          if (this.series.size >= MAX_SERIES || !this.budget.take(bytes, "usage")) continue;
          this.reserved += bytes;
          const { name, help, type } = metric;
          pending = { name, help, type, labels, value: 0, count: 0, sum: 0, buckets: new Map() };
          this.series.set(key, pending);
        } else if (older && metric.type === "gauge") {
          continue;
        }
        pending.help = metric.help;
        if ("buckets" in sample) {
          pending.count += sample.count;
          pending.sum += sample.sum;
          for (const bucket of sample.buckets) {
            const le = String(bucket.le);
            pending.buckets.set(le, (pending.buckets.get(le) ?? 0) + bucket.count);
          }
        } else if (metric.type === "gauge") {
          pending.value = sample.value;
        } else {
          pending.value += sample.value;
        }
      }
    }
  }
}
