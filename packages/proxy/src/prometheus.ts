import type { Registry } from "prom-client";
import type { DropObserver, DropReason, ReportKind } from "./budget.js";
import type { SyncObserver } from "./sync.js";

/** The text of a scrape and its media type. */
export interface Scrape {
  contentType: string;
  text: string;
}

/**
 * The operational metrics of the spec, the reports the proxy dropped, and the process
 * metrics, in a registry of this proxy's own. What the proxy counts is kept here from the
 * start; prom-client (some 80 modules with its tracing dependency, 1.5 MB resident) is loaded
 * for the first scrape, and the process metrics that observe over time (collection durations,
 * event-loop delay) run from then on.
 */
export class OperationalMetrics implements SyncObserver, DropObserver {
  private lastUpdate: number | undefined;
  private lastFetch: number | undefined;
  private readonly dropped = new Map<`${ReportKind}/${DropReason}`, number>();
  private registry: Promise<Registry> | undefined;

  fetched(): void {
    this.lastFetch = Date.now();
  }

  updated(): void {
    this.lastUpdate = Date.now();
  }

  reportsDropped(kind: ReportKind, reason: DropReason, count: number): void {
    const key = `${kind}/${reason}` as const;
    this.dropped.set(key, (this.dropped.get(key) ?? 0) + count);
  }

  async scrape(): Promise<Scrape> {
    this.registry ??= this.createRegistry();
    const registry = await this.registry;
    return { contentType: registry.contentType, text: await registry.metrics() };
  }

  private async createRegistry(): Promise<Registry> {
    const { Counter, collectDefaultMetrics, Gauge, Registry } = await import("prom-client");
    const registry = new Registry();
    const metrics = this;
    collectDefaultMetrics({ register: registry });
    new Counter({
      name: "service_proxy_up",
      help: "Set to 1 while the proxy runs.",
      registers: [registry],
    }).inc();
    new Gauge({
      name: "last_metrics_update_epoch_timestamp_ms",
      help: "Epoch ms when the proxy last received a feature update.",
      registers: [registry],
      collect() {
        if (metrics.lastUpdate !== undefined) this.set(metrics.lastUpdate);
      },
    });
    new Gauge({
      name: "last_metrics_fetch_epoch_timestamp_ms",
      help: "Epoch ms when the proxy last checked for updates.",
      registers: [registry],
      collect() {
        if (metrics.lastFetch !== undefined) this.set(metrics.lastFetch);
      },
    });
    new Counter({
      name: "proxy_reports_dropped_total",
      help:
        "Client registrations (kind=registration) and flags' usage counts (kind=usage) dropped, because the room " +
        "for reports waiting to go upstream was full (reason=full) or the upstream refused them (reason=refused).",
      labelNames: ["kind", "reason"],
      registers: [registry],
      collect() {
        // The totals are kept above; the counter shows them as they stand.
        this.reset();
        for (const [key, count] of metrics.dropped) {
          const [kind, reason] = key.split("/");
          this.inc({ kind, reason }, count);
        }
      },
    });
    return registry;
  }
}
