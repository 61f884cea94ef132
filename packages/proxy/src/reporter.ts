import { Backoff } from "./backoff.js";
import type { DropObserver } from "./budget.js";
import type { ImpactMetricsAggregator } from "./impact-metrics.js";
import type { Logger } from "./logger.js";
import type { UsageMetrics } from "./metrics.js";
import type { ClientRegistrations } from "./registrations.js";
import type { PostResult, Upstream } from "./upstream.js";
import { SDK_NAME, SPEC_VERSION } from "./version.js";

export interface ReporterOptions {
  upstream: Upstream;
  usage: UsageMetrics;
  /** Clients' impact metrics, sent in the same report as the usage counts. */
  impact?: ImpactMetricsAggregator;
  registrations: ClientRegistrations;
  appName: string;
  instanceId: string;
  connectionId: string;
  /** Names of every strategy the proxy can evaluate, announced when registering. */
  strategies: string[];
  metricsInterval: number;
  metricsJitter: number;
  logger: Logger;
  observer: DropObserver;
  random?: () => number;
}

/** What identifies the proxy's runtime in every registration and metrics report, as the SDKs send it. */
const PLATFORM = {
  platformName: "node",
  platformVersion: process.versions.node,
  yggdrasilVersion: null,
  specVersion: SPEC_VERSION,
};

/** The wait before the next send: the backed-off interval plus up to `jitter` ms, so proxies started together spread out. */
export function metricsDelay(backoff: Backoff, jitter: number, random: () => number): number {
  return backoff.delay + Math.floor(random() * jitter);
}

/**
 * Registers the proxy upstream, then every interval sends the usage counted meanwhile and
 * forwards client registrations. What fails to send is put back and leaves with the next try;
 * what the upstream refuses with a 4xx is dropped, since the same request would be refused again.
 */
export class UsageReporter {
  private readonly backoff: Backoff;
  private readonly started = new Date().toISOString();
  private registered = false;
  private registering: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ReporterOptions) {
    this.backoff = new Backoff(options.metricsInterval);
  }

  start(): void {
    void this.ensureRegistered();
    this.schedule();
  }

  /** Stops the timer and sends what is left (without registering again: the proxy is leaving). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.flush();
  }

  private async flush(): Promise<void> {
    const failures = await Promise.all([this.forwardRegistrations(), this.sendUsage()]);
    if (failures.some(Boolean)) this.backoff.failed();
    else this.backoff.succeeded();
  }

  private schedule(): void {
    const { metricsJitter, random = Math.random } = this.options;
    this.timer = setTimeout(
      async () => {
        await this.ensureRegistered();
        await this.flush();
        if (!this.stopped) this.schedule();
      },
      metricsDelay(this.backoff, metricsJitter, random),
    );
    this.timer.unref();
  }

  private ensureRegistered(): Promise<void> {
    if (this.registered) return Promise.resolve();
    this.registering ??= this.register().finally(() => {
      this.registering = undefined;
    });
    return this.registering;
  }

  private async register(): Promise<void> {
    const { upstream, appName, instanceId, connectionId, strategies, metricsInterval } = this.options;
    const result = await upstream.register({
      appName,
      instanceId,
      connectionId,
      sdkVersion: SDK_NAME,
      strategies,
      started: this.started,
      interval: metricsInterval,
      ...PLATFORM,
    });
    this.registered = result.outcome === "sent" || result.outcome === "refused";
    this.report("register the proxy", result);
  }

  /** Returns whether something failed. */
  private async sendUsage(): Promise<boolean> {
    const { upstream, usage, impact, appName, instanceId, connectionId, observer } = this.options;
    const bucket = usage.take();
    const impactMetrics = impact?.take();
    if (!bucket && !impactMetrics) return false;
    const now = new Date().toISOString();
    const result = await upstream.sendMetrics({
      appName,
      instanceId,
      connectionId,
      // Impact metrics alone still travel with a bucket, empty: what every server expects.
      bucket: bucket ?? { start: now, stop: now, toggles: {} },
      ...(impactMetrics ? { impactMetrics } : {}),
      ...PLATFORM,
    });
    if (result.outcome === "sent") return false;
    this.report("send usage metrics", result);
    if (result.outcome === "refused") {
      const series = (impactMetrics ?? []).reduce((total, metric) => total + metric.samples.length, 0);
      observer.reportsDropped("usage", "refused", Object.keys(bucket?.toggles ?? {}).length + series);
      return false;
    }
    if (bucket) usage.restore(bucket);
    if (impactMetrics) impact?.restore(impactMetrics);
    return true;
  }

  /** Returns whether something failed. */
  private async forwardRegistrations(): Promise<boolean> {
    const { upstream, registrations, observer } = this.options;
    const pending = registrations.take();
    const results = await Promise.all(pending.map((registration) => upstream.register(registration)));
    const refused = results.filter((result) => result.outcome === "refused");
    if (refused.length > 0) {
      observer.reportsDropped("registration", "refused", refused.length);
      this.report(`forward ${refused.length} client registration(s)`, refused[0]!);
    }
    const retried = (result: PostResult) => result.outcome === "denied" || result.outcome === "failed";
    const failed = pending.filter((_, i) => retried(results[i]!));
    if (failed.length === 0) return false;
    registrations.restore(failed);
    this.report("forward client registrations", results.find(retried)!);
    return true;
  }

  private report(action: string, result: PostResult): void {
    const { logger } = this.options;
    if (result.outcome === "denied") {
      logger.error(
        `The upstream service refused the API token (HTTP ${result.status}) when trying to ${action}; ` +
          "check serviceApiToken (SERVICE_API_TOKEN). Counts are kept and retried.",
      );
    } else if (result.outcome === "refused") {
      logger.warn(
        `The upstream service refused to ${action} (HTTP ${result.status}); ` +
          "dropped rather than retried, as it would be refused again",
      );
    } else if (result.outcome === "failed") {
      logger.warn(`Cannot ${action} (${result.reason}); retrying at the next interval`);
    }
  }
}
