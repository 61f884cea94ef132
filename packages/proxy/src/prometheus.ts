import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { DropObserver, DropReason, ReportKind } from "./budget.js";
import type { SyncObserver } from "./sync.js";

/**
 * The operational metrics of the spec, the reports the proxy dropped, and the process
 * metrics, in a registry of this proxy's own.
 */
export class OperationalMetrics implements SyncObserver, DropObserver {
  private readonly registry = new Registry();
  private readonly lastUpdate: Gauge;
  private readonly lastFetch: Gauge;
  private readonly dropped: Counter<"kind" | "reason">;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    new Counter({
      name: "service_proxy_up",
      help: "Set to 1 while the proxy runs.",
      registers: [this.registry],
    }).inc();
    this.lastUpdate = new Gauge({
      name: "last_metrics_update_epoch_timestamp_ms",
      help: "Epoch ms when the proxy last received a feature update.",
      registers: [this.registry],
    });
    this.lastFetch = new Gauge({
      name: "last_metrics_fetch_epoch_timestamp_ms",
      help: "Epoch ms when the proxy last checked for updates.",
      registers: [this.registry],
    });
    this.dropped = new Counter({
      name: "proxy_reports_dropped_total",
      help:
        "Client registrations (kind=registration) and flags' usage counts (kind=usage) dropped, because the room " +
        "for reports waiting to go upstream was full (reason=full) or the upstream refused them (reason=refused).",
      labelNames: ["kind", "reason"],
      registers: [this.registry],
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  fetched(): void {
    this.lastFetch.set(Date.now());
  }

  updated(): void {
    this.lastUpdate.set(Date.now());
  }

  reportsDropped(kind: ReportKind, reason: DropReason, count: number): void {
    this.dropped.inc({ kind, reason }, count);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
