import { type ClientFeatures, type CompileOptions, compile, type Snapshot } from "@signalbox/engine";
import { Backoff } from "./backoff.js";
import type { Logger } from "./logger.js";
import type { StorageProvider } from "./storage.js";
import { fetchBootstrap, type Outbound, type Upstream } from "./upstream.js";

/** Told about every successful poll and every new configuration, for the operational metrics. */
export interface SyncObserver {
  fetched(): void;
  updated(): void;
}

export interface SyncOptions {
  upstream: Upstream;
  outbound: Outbound;
  compileOptions: CompileOptions;
  refreshInterval: number;
  storage: StorageProvider | undefined;
  storageKey: string;
  bootstrap: { url: string; urlHeaders: Record<string, string> } | undefined;
  logger: Logger;
  observer: SyncObserver;
}

type Source = "upstream" | "storage" | "bootstrap";

/**
 * Keeps the compiled configuration current. It polls the upstream service, compiles what
 * arrives outside any request, and swaps the snapshot reference in one assignment, so a
 * request sees either the old configuration or the new one, never a mix. Until the first
 * configuration arrives (from upstream, storage or bootstrap) there is no snapshot and the
 * proxy is not ready.
 */
export class FeatureSync {
  private current: Snapshot | undefined;
  private etag: string | undefined;
  private hasUpstreamData = false;
  private lastPollFailed = false;
  private refused = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly backoff: Backoff;
  private markReady!: () => void;
  /** Settles once the proxy has a configuration to serve. */
  readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });

  constructor(private readonly options: SyncOptions) {
    this.backoff = new Backoff(options.refreshInterval);
  }

  get snapshot(): Snapshot | undefined {
    return this.current;
  }

  start(): void {
    void this.poll();
    void this.restore();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async poll(): Promise<void> {
    try {
      await this.pollOnce();
    } catch (error) {
      this.options.logger.error(`Cannot apply the upstream configuration: ${(error as Error).message}`);
    } finally {
      if (!this.stopped) {
        this.timer = setTimeout(() => void this.poll(), this.backoff.delay);
        this.timer.unref();
      }
    }
  }

  private async pollOnce(): Promise<void> {
    const { upstream, logger, observer } = this.options;
    const result = await upstream.fetchFeatures(this.etag);
    if (this.stopped) return;
    switch (result.outcome) {
      case "changed":
        observer.fetched();
        this.recovered();
        this.etag = result.etag;
        this.hasUpstreamData = true;
        this.install(result.document, "upstream");
        this.backup(result.document);
        break;
      case "unchanged":
        observer.fetched();
        this.recovered();
        break;
      case "denied":
        // Polling on at the longest backoff, as the Unleash Java SDK does, rather than stopping
        // as the Node SDK does: a token fixed upstream is picked up without a restart.
        this.backoff.exhausted();
        if (!this.refused) {
          logger.error(
            `The upstream service refused the API token (HTTP ${result.status}); ` +
              `asking again only every ${this.backoff.delay} ms. Check serviceApiToken (SERVICE_API_TOKEN).`,
          );
        }
        this.refused = true;
        this.lastPollFailed = true;
        break;
      case "failed":
        this.refused = false;
        this.lastPollFailed = true;
        this.backoff.failed();
        logger.warn(
          `Cannot fetch flags from the upstream service (${result.reason}); ` +
            `${this.current ? "serving the last configuration, " : ""}retrying in ${this.backoff.delay} ms`,
        );
        break;
    }
  }

  private recovered(): void {
    if (this.lastPollFailed) this.options.logger.info("The upstream service answers again");
    this.lastPollFailed = false;
    this.refused = false;
    this.backoff.succeeded();
  }

  /** Serves the stored or bootstrap configuration while nothing has come from upstream yet. */
  private async restore(): Promise<void> {
    const { storage, storageKey, bootstrap, outbound, logger } = this.options;
    if (storage) {
      try {
        const stored = await storage.get(storageKey);
        if (stored && !this.hasUpstreamData) this.install(stored, "storage");
      } catch (error) {
        logger.warn(`Cannot read the stored configuration: ${(error as Error).message}`);
      }
    }
    if (bootstrap) {
      try {
        const document = await fetchBootstrap(outbound, bootstrap.url, bootstrap.urlHeaders);
        if (!this.hasUpstreamData) this.install(document, "bootstrap");
      } catch (error) {
        logger.warn(`Cannot bootstrap from ${bootstrap.url}: ${(error as Error).message}`);
      }
    }
  }

  private install(document: ClientFeatures, source: Source): void {
    if (this.stopped) return;
    const first = this.current === undefined;
    this.current = compile(document, this.options.compileOptions);
    this.options.observer.updated();
    this.options.logger.info(`Serving ${this.current.size} flags from the ${source} configuration`);
    if (first) this.markReady();
  }

  private backup(document: ClientFeatures): void {
    const { storage, storageKey, logger } = this.options;
    if (!storage) return;
    // A provider written in plain JavaScript may throw or return no promise at all.
    Promise.resolve()
      .then(() => storage.set(storageKey, document))
      .catch((error: Error) => logger.warn(`Cannot store the configuration: ${error?.message ?? error}`));
  }
}
