import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { SyncObserver } from "./sync.js";

/** The operational metrics of the spec plus the process metrics, in a registry of this proxy's own. */
export class OperationalMetrics implements SyncObserver {
  private readonly registry = new Registry();
  private readonly lastUpdate: Gauge;
  private readonly lastFetch: Gauge;

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

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
