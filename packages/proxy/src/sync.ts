import { type ClientFeatures, type CompileOptions, compile, type Snapshot } from "@signalbox/engine";
import { Backoff } from "./backoff.js";
import type { Logger } from "./logger.js";
import type { Outbound } from "./outbound.js";
import type { StorageProvider } from "./storage.js";
import { fetchBootstrap, type Upstream } from "./upstream.js";

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

/** A failure worth one error line per streak rather than one per poll. */
type Problem = "refused" | "missing";

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
  private problem: Problem | undefined;
  private stored: Promise<ClientFeatures | undefined> = Promise.resolve(undefined);
  private storedOffered = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private saving: Promise<void> = Promise.resolve();
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
    // Read while the first poll is in flight, and served only when that poll fails: a
    // reachable upstream is never preceded by an older configuration, even for a moment.
    this.stored = this.readStored();
    void this.poll();
    void this.bootstrap();
  }

  /** Stops polling; resolves once the configuration being saved, if any, is on disk. */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.saving;
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
        return;
      case "unchanged":
        observer.fetched();
        this.recovered();
        return;
      case "denied":
        // Polling on at the longest backoff, as the Unleash Java SDK does, rather than stopping
        // as the Node SDK does: a token fixed upstream is picked up without a restart.
        this.backoff.exhausted();
        this.report(
          "refused",
          () =>
            `The upstream service refused the API token (HTTP ${result.status}); ` +
            `asking again only every ${this.backoff.delay} ms. Check serviceApiToken (SERVICE_API_TOKEN).`,
        );
        break;
      case "missing":
        // A wrong address, not a struggling service: backing off would only delay the moment
        // a corrected address (or a service that finished deploying) is seen.
        this.report("missing", () => {
          const url = upstream.serviceUrl;
          const fix = url.endsWith("/api")
            ? "it must be the flag service's API URL, such as http://flags.example:4242/api"
            : `it must be the flag service's API URL, usually ending in /api: try ${url}/api`;
          return (
            `The upstream service answered 404 for ${result.url}: serviceUrl (SERVICE_URL) is wrong; ` +
            `${fix}. Retrying every ${this.backoff.delay} ms.`
          );
        });
        break;
      case "failed":
        this.problem = undefined;
        this.backoff.failed();
        logger.warn(
          `Cannot fetch flags from the upstream service (${result.reason}); ` +
            `${this.current ? "serving the last configuration, " : ""}retrying in ${this.backoff.delay} ms`,
        );
        break;
    }
    this.lastPollFailed = true;
    void this.offerStored();
  }

  private report(problem: Problem, message: () => string): void {
    if (this.problem !== problem) this.options.logger.error(message());
    this.problem = problem;
  }

  private recovered(): void {
    if (this.lastPollFailed) this.options.logger.info("The upstream service answers again");
    this.lastPollFailed = false;
    this.problem = undefined;
    this.backoff.succeeded();
  }

  private async readStored(): Promise<ClientFeatures | undefined> {
    const { storage, storageKey, logger } = this.options;
    if (!storage) return undefined;
    try {
      return await storage.get(storageKey);
    } catch (error) {
      logger.warn(`Cannot read the stored configuration: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** After the first failed poll: the stored configuration, unless something else is served already. */
  private async offerStored(): Promise<void> {
    if (this.storedOffered) return;
    this.storedOffered = true;
    const stored = await this.stored;
    if (!stored || this.current) return;
    try {
      this.install(stored, "storage");
    } catch (error) {
      this.options.logger.warn(`Cannot use the stored configuration: ${(error as Error).message}`);
    }
  }

  /** Serves the bootstrap document while nothing has come from upstream yet. */
  private async bootstrap(): Promise<void> {
    const { bootstrap, outbound, logger } = this.options;
    if (!bootstrap) return;
    try {
      const document = await fetchBootstrap(outbound, bootstrap.url, bootstrap.urlHeaders);
      if (!this.hasUpstreamData) this.install(document, "bootstrap");
    } catch (error) {
      logger.warn(`Cannot bootstrap from ${bootstrap.url}: ${(error as Error).message}`);
    }
  }

  private install(document: ClientFeatures, source: Source): void {
    if (this.stopped) return;
    const first = this.current === undefined;
    this.current = compile(document, this.options.compileOptions);
    this.options.observer.updated();
    const serving = `Serving ${this.current.size} flags from the ${source} configuration`;
    // Old flags in front of users is worth an operator's attention; the other sources are routine.
    if (source === "storage") this.options.logger.warn(`${serving} until the upstream service answers`);
    else this.options.logger.info(serving);
    if (first) this.markReady();
  }

  private backup(document: ClientFeatures): void {
    const { storage, storageKey, logger } = this.options;
    if (!storage) return;
    // In order, so an older configuration never lands after a newer one. A provider written
    // in plain JavaScript may throw or return no promise at all.
    this.saving = this.saving
      .then(() => storage.set(storageKey, document))
      .catch((error: Error) => logger.warn(`Cannot store the configuration: ${error?.message ?? error}`));
  }
}
