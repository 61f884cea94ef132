import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** How busy the database pool is; PGlite's single connection reports through the same pool. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * What the service measures about itself, in one registry per app (tests run several apps
 * in one process). Services report into it; /internal-backstage/prometheus renders it.
 * Metric names follow the reference where it has one, so existing dashboards keep working.
 */
export class Telemetry {
  readonly registry = new Registry();

  // A histogram, where the reference keeps a summary: observing is a bucket increment rather
  // than a quantile sketch update, which the SDK endpoints would pay on every request.
  readonly requestDuration = new Histogram({
    name: "http_request_duration_milliseconds",
    help: "How long requests take, by route, method and status.",
    labelNames: ["path", "method", "status"],
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [this.registry],
  });

  readonly documentBytes = new Gauge({
    name: "client_features_document_bytes",
    help: "Size of the SDK document last built, by environment.",
    labelNames: ["environment"],
    registers: [this.registry],
  });

  readonly documentRebuild = new Histogram({
    name: "client_features_rebuild_seconds",
    help: "Time to rebuild an environment's SDK document after a change.",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly clientStreams = new Gauge({
    name: "client_streaming_connections",
    help: "SDK connections open on /api/client/streaming on this instance.",
    registers: [this.registry],
  });

  readonly eventsWritten = new Counter({
    name: "events_written_total",
    help: "Events this instance wrote to the event log, by type.",
    labelNames: ["type"],
    registers: [this.registry],
  });

  readonly flagUpdates = new Counter({
    name: "feature_toggle_update_total",
    help: "Changes to flags, by flag, project and environment (for annotations).",
    labelNames: ["toggle", "project", "environment"],
    registers: [this.registry],
  });

  /** Text appended to the registry's: metrics whose shape prom-client's cannot hold. */
  private readonly expositions: ((taken: ReadonlySet<string>) => string)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Adds lines to every scrape, rendered then; `render` is told the names the registry's own
   * metrics take (a histogram's `_bucket`, `_sum` and `_count` included), which it must leave alone.
   */
  expose(render: (taken: ReadonlySet<string>) => string): void {
    this.expositions.push(render);
  }

  /** The registry's metrics and the exposed ones, in the Prometheus text format. */
  async text(): Promise<string> {
    const own = await this.registry.metrics();
    if (this.expositions.length === 0) return own;
    const taken = new Set<string>();
    for (const metric of this.registry.getMetricsAsArray()) {
      const { name, type } = metric as unknown as { name: string; type: string };
      taken.add(name);
      if (type === "histogram" || type === "summary")
        for (const suffix of ["_bucket", "_sum", "_count"]) taken.add(`${name}${suffix}`);
    }
    const added = this.expositions.map((render) => render(taken)).join("");
    return added === "" ? own : `${own.endsWith("\n") || own === "" ? own : `${own}\n`}${added}`;
  }

  /** Reads the pool each time Prometheus scrapes, rather than on every query. */
  watchPool(stats: () => PoolStats): void {
    const gauge = (name: string, help: string, read: (pool: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(stats()));
        },
      });
    gauge("db_pool_used", "Database connections in use.", (pool) => pool.total - pool.idle);
    gauge("db_pool_free", "Database connections open and idle.", (pool) => pool.idle);
    gauge("db_pool_pending_acquires", "Queries waiting for a connection.", (pool) => pool.waiting);
  }

  /** Consumers of the event log and how many events each has yet to handle. */
  watchOutbox(lag: () => Promise<Record<string, number>>): void {
    new Gauge({
      name: "outbox_lag_events",
      help: "Events written but not yet handled, by outbox consumer.",
      labelNames: ["consumer"],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [consumer, behind] of Object.entries(await lag())) this.set({ consumer }, behind);
      },
    });
  }

  recordEvents(
    events: readonly {
      type: string;
      featureName?: string | null;
      project?: string | null;
      environment?: string | null;
    }[],
  ): void {
    for (const event of events) {
      this.eventsWritten.inc({ type: event.type });
      if (event.featureName) {
        this.flagUpdates.inc({
          toggle: event.featureName,
          project: event.project ?? "",
          environment: event.environment ?? "",
        });
      }
    }
  }
}
