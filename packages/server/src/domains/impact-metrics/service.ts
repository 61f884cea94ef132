import {
  type ImpactLabels,
  type ImpactMetricType,
  invalidField,
  readImpactMetrics,
} from "@signalbox/protocol";
import type { Actor, TokenActor } from "../../access/actor.js";
import type { ImpactMetricsSettings } from "../../config.js";
import type { Db } from "../../db/connection.js";
import { ulid } from "../../shared/ulid.js";
import type { Telemetry } from "../../telemetry.js";
import type { OutboxLog } from "../events/outbox.js";
import type { EventService } from "../events/service.js";
import type { FlagService } from "../features/flags/service.js";
import { Batches } from "../metrics/batches.js";
import { entriesOf, entryKey, merge, type SeriesEntry } from "./entries.js";
import { Exposition } from "./exposition.js";
import { matches, parseSeriesName, sanitize, seriesName } from "./names.js";
import { addBuckets, type Buckets, histogramQuantile } from "./quantile.js";
import type {
  AggregationMode,
  ImpactMetricsConfig,
  ImpactMetricsConfigInput,
  ImpactMetricsData,
  ImpactMetricsMetadata,
  TimeRange,
} from "./schemas.js";
import {
  type CounterPoint,
  type HistogramPoint,
  type StepGrid,
  impactMetricsStore as store,
} from "./store.js";

/** What the safeguards and the admin routes ask: one number over the last window. */
export interface AggregateQuery {
  /** `unleash_<type>_<name>`, as the reference's UI names a metric, or the metric's own name. */
  metricName: string;
  aggregationMode: AggregationMode;
  /** Label values to keep, by label; `*` or no values keeps any. */
  labelSelectors: Record<string, string[]>;
  windowMs: number;
  now?: Date;
}

export interface SeriesQuery {
  metricName: string;
  /** Left out: the metric's usual one (count, avg or p95). */
  aggregationMode?: AggregationMode;
  labelSelectors: Record<string, string[]>;
  range: TimeRange;
  /** Whether to answer the metric's labels and their values too. */
  withLabels?: boolean;
  now?: Date;
}

/** What impact metrics ask of other domains: the flag a chart is put on. */
export interface ImpactMetricsLookups {
  flags: Pick<FlagService, "require">;
}

interface Metric {
  name: string;
  type: ImpactMetricType;
  help: string;
}

/** The aggregations that apply to each type; the first is what a chart uses when it names none. */
const MODES: Record<ImpactMetricType, readonly AggregationMode[]> = {
  counter: ["count", "rps"],
  gauge: ["avg", "sum"],
  // A histogram's observations count as a counter does.
  histogram: ["p95", "p50", "p99", "count", "rps"],
};
const QUANTILES: Partial<Record<AggregationMode, number>> = { p50: 0.5, p95: 0.95, p99: 0.99 };
const HOUR_S = 3600;
const RANGES: Record<TimeRange, { seconds: number; stepSeconds: number; step: string }> = {
  hour: { seconds: HOUR_S, stepSeconds: 60, step: "1m" },
  day: { seconds: 24 * HOUR_S, stepSeconds: 15 * 60, step: "15m" },
  week: { seconds: 7 * 24 * HOUR_S, stepSeconds: HOUR_S, step: "1h" },
  month: { seconds: 30 * 24 * HOUR_S, stepSeconds: 4 * HOUR_S, step: "4h" },
};

/** The most reports written together. */
const BATCH_LIMIT = 100;
/** How often a limit's refusals are logged at most, and how long a refused series is not looked up again. */
const WARN_EVERY_MS = 60_000;
const FOREIGN_KEY_VIOLATION = "23503";

/** A report's entries, and the start of the window they arrived in. */
interface Arrival {
  entries: SeriesEntry[];
  bucket: string;
}

const labelValues = (series: readonly { labels: ImpactLabels }[]): Record<string, string[]> => {
  const values = new Map<string, Set<string>>();
  for (const { labels } of series) {
    for (const [label, value] of Object.entries(labels)) {
      const seen = values.get(label) ?? new Set<string>();
      seen.add(value);
      values.set(label, seen);
    }
  }
  return Object.fromEntries(
    [...values]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([label, seen]) => [label, [...seen].sort()]),
  );
};

/** A limit's refusals, logged at most once a minute each, with how many went unlogged. */
class Refusals {
  private readonly logged = new Map<string, { at: number; since: number }>();

  constructor(private readonly log: () => OutboxLog | undefined) {}

  refuse(limit: string, message: string, now = Date.now()): void {
    const last = this.logged.get(limit);
    if (last && now - last.at < WARN_EVERY_MS) {
      last.since++;
      return;
    }
    const since = last?.since ? ` (${last.since} more refused since the last such line)` : "";
    this.logged.set(limit, { at: now, since: 0 });
    this.log()?.warn({ limit }, `impact metrics: ${message}${since}; logged at most once a minute`);
  }
}

/**
 * Impact metrics: what SDKs report of the counters, gauges and histograms an application
 * defines, stored per series and window (see store.ts), within limits on how many metrics and
 * series are kept (a new one past them is refused, with a warning); queried by safeguards and
 * charts; and shown to Prometheus as this instance received them.
 */
export class ImpactMetricsService {
  private log: OutboxLog | undefined;
  private pruner: NodeJS.Timeout | undefined;
  /** Series ids by name and labels key: every report names the same series again. */
  private readonly known = new Map<string, number>();
  /** Series refused lately, not looked up again until the next minute. */
  private refused = { at: 0, keys: new Set<string>() };
  private readonly refusals = new Refusals(() => this.log);
  private readonly exposition: Exposition;
  private readonly arrivals = new Batches<Arrival>((arrivals) => this.write(arrivals), BATCH_LIMIT);

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly lookups: ImpactMetricsLookups,
    private readonly settings: ImpactMetricsSettings,
    telemetry: Telemetry,
  ) {
    this.exposition = new Exposition(settings);
    telemetry.expose((taken) => this.exposition.render(taken));
  }

  /** Logs refusals and failures to `log`, and deletes points past the retention every `intervalMs`. */
  start(log: OutboxLog, intervalMs = 3_600_000): void {
    this.log = log;
    const prune = () =>
      void this.prune().catch((error) => log.error({ err: error }, "impact metrics: pruning failed"));
    prune();
    this.pruner = setInterval(prune, intervalMs);
    this.pruner.unref();
  }

  stop(): void {
    clearInterval(this.pruner);
  }

  /** Deletes points older than the retention, and series left without any. */
  async prune(now = new Date()): Promise<{ points: number; series: number }> {
    const pruned = await store.prune(this.db, new Date(now.getTime() - this.settings.retentionMs));
    if (pruned.series > 0) this.known.clear();
    return pruned;
  }

  /**
   * Stores a report's `impactMetrics` as they are read (malformed ones dropped), labelled
   * with the token's environment and the report's application where the SDK said neither.
   * Never fails: impact metrics must not cost an SDK its report, so a failure is logged.
   */
  async ingest(token: TokenActor, appName: string, raw: unknown, now = new Date()): Promise<void> {
    try {
      if (raw === undefined) return;
      const entries = entriesOf(readImpactMetrics(raw), { environment: token.environment, appName });
      if (entries.length === 0) return;
      const resolution = this.settings.resolutionSeconds * 1000;
      const bucket = new Date(Math.floor(now.getTime() / resolution) * resolution).toISOString();
      await this.arrivals.add({ entries, bucket });
    } catch (error) {
      this.refusals.refuse("write", `could not store a report's metrics: ${String(error)}`);
    }
  }

  /**
   * The value of a metric over the last `windowMs` across its series that match the
   * selectors: rps, a counter's increase per second; count, its increase; avg and sum, of
   * each gauge series' latest value; pNN, the quantile of the histograms' buckets added up,
   * interpolated as Prometheus's histogram_quantile does. Undefined without points in the
   * window, for a metric no SDK reported, or for an aggregation that does not apply to it.
   */
  async aggregate(query: AggregateQuery): Promise<number | undefined> {
    if (!(query.windowMs > 0)) return undefined;
    const metric = await this.resolve(query.metricName, query.aggregationMode);
    if (!metric || !MODES[metric.type].includes(query.aggregationMode)) return undefined;
    const seriesIds = await this.matching(metric, query.labelSelectors);
    if (seriesIds.length === 0) return undefined;
    const now = query.now ?? new Date();
    const resolution = this.settings.resolutionSeconds * 1000;
    const from = new Date(now.getTime() - query.windowMs);
    const values = await this.stepValues(metric.type, query.aggregationMode, {
      seriesIds,
      // Every window that overlaps the last `windowMs`.
      since: new Date(from.getTime() - resolution + 1),
      until: now,
      from,
      stepSeconds: query.windowMs / 1000,
      steps: 1,
    });
    return values.get(0);
  }

  /** A metric's values over a time range, one per step with data, as the reference's admin UI charts them. */
  async series(query: SeriesQuery): Promise<ImpactMetricsData> {
    const now = query.now ?? new Date();
    const range = RANGES[query.range];
    const stepMs = range.stepSeconds * 1000;
    const from = new Date(Math.floor((now.getTime() - range.seconds * 1000) / stepMs) * stepMs);
    const answer: ImpactMetricsData = {
      series: [],
      start: String(from.getTime() / 1000),
      end: String(Math.floor(now.getTime() / 1000)),
      step: range.step,
      labels: {},
    };
    const metric = await this.resolve(query.metricName, query.aggregationMode);
    if (!metric) return answer;
    const mode = query.aggregationMode ?? MODES[metric.type][0]!;
    if (!MODES[metric.type].includes(mode)) {
      throw invalidField(
        "aggregationMode",
        `aggregationMode ${mode} does not apply to a ${metric.type}: use ${MODES[metric.type].join(", ")}`,
      );
    }
    answer.debug = { metricType: metric.type };
    const all = await store.series(this.db, metric);
    if (query.withLabels) answer.labels = labelValues(all);
    const seriesIds = all.filter((row) => matches(row.labels, query.labelSelectors)).map((row) => row.id);
    if (seriesIds.length === 0) return answer;
    const steps = Math.max(1, Math.ceil((now.getTime() - from.getTime()) / stepMs));
    const values = await this.stepValues(metric.type, mode, {
      seriesIds,
      since: from,
      until: now,
      from,
      stepSeconds: range.stepSeconds,
      steps,
    });
    if (values.size === 0) return answer;
    const at = (step: number) => from.getTime() / 1000 + step * range.stepSeconds;
    // A counter that reported nothing in a step counted nothing there; a gauge or a quantile has no value.
    const dense = mode === "count" || mode === "rps";
    const data: [number, string][] = [];
    for (let step = 0; step < steps; step++) {
      const value = values.get(step);
      if (value !== undefined) data.push([at(step), String(value)]);
      else if (dense) data.push([at(step), "0"]);
    }
    answer.series = [{ metric: {}, data }];
    return answer;
  }

  /** Every metric SDKs reported, with its labels and the values seen of each. */
  async metadata(_actor: Actor): Promise<ImpactMetricsMetadata> {
    const [metrics, series] = await Promise.all([store.metrics(this.db), store.series(this.db)]);
    return {
      metrics: metrics.map((metric) => ({
        name: seriesName(metric.type, metric.name),
        displayName: metric.name,
        help: metric.help ?? "",
        source: "internal" as const,
        type: metric.type,
        labels: labelValues(series.filter((row) => row.name === metric.name && row.type === metric.type)),
      })),
    };
  }

  /** The charts put on a flag, oldest first. */
  async configs(_actor: Actor, projectId: string, featureName: string): Promise<ImpactMetricsConfig[]> {
    await this.lookups.flags.require(this.db, projectId, featureName);
    return (await store.configs(this.db, featureName)).map(configView);
  }

  /** Puts a chart on a flag, or changes the flag's chart of the id given. */
  async saveConfig(
    actor: Actor,
    projectId: string,
    featureName: string,
    input: ImpactMetricsConfigInput,
  ): Promise<ImpactMetricsConfig> {
    if (input.source === "external") {
      throw invalidField(
        "source",
        "Only internal impact metrics (what SDKs report to this service) are supported",
      );
    }
    const prefixed = parseSeriesName(input.metricName);
    if (prefixed && !MODES[prefixed.type].includes(input.aggregationMode)) {
      throw invalidField(
        "aggregationMode",
        `aggregationMode ${input.aggregationMode} does not apply to a ${prefixed.type}: use ${MODES[prefixed.type].join(", ")}`,
      );
    }
    const id = input.id ?? ulid();
    return this.events.change(actor, async (change) => {
      await this.lookups.flags.require(change.db, projectId, featureName);
      const existing = await store.config(change.db, id);
      // Another flag's chart is not this flag's to change: as if there were none, but its id is taken.
      if (existing && existing.feature_name !== featureName) {
        throw invalidField("id", `id ${id} is taken by a chart of another flag`);
      }
      const row = {
        id,
        feature_name: featureName,
        metric_name: input.metricName,
        time_range: input.timeRange,
        aggregation_mode: input.aggregationMode,
        label_selectors: input.labelSelectors,
        y_axis_min: input.yAxisMin ?? "auto",
        title: input.title ?? null,
      };
      await store.saveConfig(change.db, row);
      return configView(row);
    });
  }

  /** Takes a chart off a flag; one it does not have is no error. */
  async deleteConfig(actor: Actor, projectId: string, featureName: string, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.lookups.flags.require(change.db, projectId, featureName);
      await store.deleteConfig(change.db, featureName, id);
    });
  }

  /** The stored metric a name stands for; of several types by one name, one the aggregation applies to. */
  private async resolve(metricName: string, mode: AggregationMode | undefined): Promise<Metric | undefined> {
    const metrics = await store.metrics(this.db);
    const prefixed = parseSeriesName(metricName);
    if (prefixed) {
      const found = metrics.find((metric) => metric.name === prefixed.name && metric.type === prefixed.type);
      if (found) return { ...found, help: found.help ?? "" };
    }
    const name = sanitize(metricName);
    const named = metrics.filter((metric) => metric.name === name);
    const found = named.find((metric) => mode && MODES[metric.type].includes(mode)) ?? named[0];
    return found && { ...found, help: found.help ?? "" };
  }

  private async matching(metric: Metric, selectors: Record<string, string[]>): Promise<number[]> {
    const series = await store.series(this.db, metric);
    return series.filter((row) => matches(row.labels, selectors)).map((row) => row.id);
  }

  /** The aggregation's value in each step of the grid that has points. */
  private async stepValues(
    type: ImpactMetricType,
    mode: AggregationMode,
    grid: StepGrid,
  ): Promise<Map<number, number>> {
    const values = new Map<number, number>();
    if (mode === "count" || mode === "rps") {
      for (const row of await store.sums(this.db, grid)) {
        const total = type === "histogram" ? row.count : row.value;
        values.set(row.step, mode === "rps" ? total / grid.stepSeconds : total);
      }
      return values;
    }
    if (mode === "avg" || mode === "sum") {
      const perStep = new Map<number, number[]>();
      for (const row of await store.lastValues(this.db, grid)) {
        perStep.set(row.step, [...(perStep.get(row.step) ?? []), row.value]);
      }
      for (const [step, latest] of perStep) {
        const sum = latest.reduce((total, value) => total + value, 0);
        values.set(step, mode === "sum" ? sum : sum / latest.length);
      }
      return values;
    }
    const perStep = new Map<number, Buckets>();
    for (const row of await store.bucketCounts(this.db, grid)) {
      const buckets = perStep.get(row.step) ?? new Map();
      addBuckets(buckets, { [row.le]: row.count });
      perStep.set(row.step, buckets);
    }
    for (const [step, buckets] of perStep) {
      const value = histogramQuantile(QUANTILES[mode]!, buckets);
      if (value !== undefined) values.set(step, value);
    }
    return values;
  }

  /**
   * Writes reports that arrived together: each series is found (or added, within the limits),
   * then each one's points are added up per window and written, one statement per type.
   */
  private async write(arrivals: Arrival[]): Promise<void> {
    const ids = await this.seriesIds(arrivals.flatMap((arrival) => arrival.entries));
    const points = new Map<string, { id: number; bucket: string; entry: SeriesEntry }>();
    const accepted: SeriesEntry[] = [];
    for (const { entries, bucket } of arrivals) {
      for (const entry of entries) {
        const id = ids.get(entryKey(entry));
        if (id === undefined) continue;
        accepted.push(entry);
        const key = `${id} ${bucket}`;
        const point = points.get(key);
        if (point) merge(point.entry, entry);
        else points.set(key, { id, bucket, entry: { ...entry, buckets: { ...entry.buckets } } });
      }
    }
    const counters: CounterPoint[] = [];
    const gauges: CounterPoint[] = [];
    const histograms: HistogramPoint[] = [];
    for (const { id, bucket, entry } of points.values()) {
      if (entry.type === "histogram") {
        histograms.push({
          series_id: id,
          bucket,
          count: entry.count,
          sum: entry.sum,
          buckets: entry.buckets,
        });
      } else {
        (entry.type === "gauge" ? gauges : counters).push({ series_id: id, bucket, value: entry.value });
      }
    }
    try {
      await this.db.transaction().execute(async (trx) => {
        await store.addCounters(trx, counters);
        await store.setGauges(trx, gauges);
        await store.addHistograms(trx, histograms);
      });
    } catch (error) {
      // A series pruned meanwhile (by another instance): found or added again on the next try.
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) this.known.clear();
      throw error;
    }
    this.exposition.record(accepted);
  }

  /**
   * The ids of the entries' series, adding the new ones while the limits allow: at most
   * `maxMetrics` metrics, each of at most `maxSeriesPerMetric` series. One refused is left
   * out, and said in a warning once a minute per limit. Instances adding series at the same
   * moment may each take the last place: the limits hold within a few series.
   */
  private async seriesIds(entries: SeriesEntry[]): Promise<Map<string, number>> {
    const now = Date.now();
    if (now - this.refused.at >= WARN_EVERY_MS) this.refused = { at: now, keys: new Set() };
    const ids = new Map<string, number>();
    const unknown = new Map<string, SeriesEntry>();
    for (const entry of entries) {
      const key = entryKey(entry);
      const id = this.known.get(key);
      if (id !== undefined) ids.set(key, id);
      else if (!this.refused.keys.has(key)) unknown.set(key, entry);
    }
    if (unknown.size === 0) return ids;
    const remember = (rows: { id: number; name: string; labels_key: string }[]) => {
      for (const row of rows) {
        const key = entryKey({ name: row.name, key: row.labels_key });
        this.known.set(key, row.id);
        ids.set(key, row.id);
        unknown.delete(key);
      }
    };
    const wanted = () => [...unknown.values()].map((entry) => ({ name: entry.name, labels_key: entry.key }));
    remember(await store.findSeries(this.db, wanted()));
    if (unknown.size === 0) return ids;

    const sizes = new Map((await store.sizes(this.db)).map((row) => [`${row.name} ${row.type}`, row.series]));
    let metrics = sizes.size;
    const added: SeriesEntry[] = [];
    for (const [key, entry] of unknown) {
      const metric = `${entry.name} ${entry.type}`;
      const size = sizes.get(metric);
      if (size === undefined && metrics >= this.settings.maxMetrics) {
        this.refuse(
          key,
          "IMPACT_METRICS_MAX_METRICS",
          `refused the new metric ${entry.name} (${entry.type}): ${metrics} metrics are kept, the most IMPACT_METRICS_MAX_METRICS (${this.settings.maxMetrics}) allows`,
        );
        continue;
      }
      if ((size ?? 0) >= this.settings.maxSeriesPerMetric) {
        this.refuse(
          key,
          "IMPACT_METRICS_MAX_SERIES_PER_METRIC",
          `refused a new series of ${entry.name} (${entry.type}): it has ${size ?? 0} series, the most IMPACT_METRICS_MAX_SERIES_PER_METRIC (${this.settings.maxSeriesPerMetric}) allows`,
        );
        continue;
      }
      if (size === undefined) metrics++;
      sizes.set(metric, (size ?? 0) + 1);
      added.push(entry);
    }
    remember(
      await store.insertSeries(
        this.db,
        added.map((entry) => ({
          name: entry.name,
          type: entry.type,
          help: entry.help,
          labels: entry.labels,
          labels_key: entry.key,
        })),
      ),
    );
    // Added by another instance meanwhile.
    if (added.some((entry) => unknown.has(entryKey(entry))))
      remember(await store.findSeries(this.db, wanted()));
    return ids;
  }

  private refuse(key: string, limit: string, message: string): void {
    if (this.refused.keys.size < 100_000) this.refused.keys.add(key);
    this.refusals.refuse(limit, message);
  }
}

function configView(row: {
  id: string;
  metric_name: string;
  time_range: string;
  aggregation_mode: string;
  label_selectors: Record<string, string[]>;
  y_axis_min: string;
  title: string | null;
}): ImpactMetricsConfig {
  const timeRange = row.time_range as TimeRange;
  return {
    id: row.id,
    metricName: row.metric_name,
    displayName: parseSeriesName(row.metric_name)?.name ?? row.metric_name,
    timeRange,
    aggregationMode: row.aggregation_mode as AggregationMode,
    labelSelectors: row.label_selectors,
    yAxisMin: row.y_axis_min === "zero" ? "zero" : "auto",
    ...(row.title === null ? {} : { title: row.title }),
    source: "internal",
    step: RANGES[timeRange]?.step ?? RANGES.hour.step,
  };
}
