import {
  type ClientFeatures,
  type CompileOptions,
  compile,
  type DeltaEvent,
  type Snapshot,
} from "@signalbox/engine";
import { Backoff } from "./backoff.js";
import type { Logger } from "./logger.js";
import type { Outbound } from "./outbound.js";
import type { ConfigSource } from "./source.js";
import type { StorageProvider } from "./storage.js";
import { fetchBootstrap, type StreamEnd, type StreamEvent, type Upstream } from "./upstream.js";

/** Told about every successful poll and every new configuration, for the operational metrics. */
export interface SyncObserver {
  fetched(): void;
  updated(): void;
  /** The upstream refused the token (401/403): for whoever can follow with another one. */
  denied?(): void;
}

export interface SyncOptions {
  upstream: Upstream;
  outbound: Outbound;
  compileOptions: CompileOptions;
  refreshInterval: number;
  /** Follow the upstream's event stream where it offers one, polling where it does not. */
  streaming: boolean;
  /** While polling for want of a stream, how long before a stream is tried again. */
  streamRetryMs: number;
  storage: StorageProvider | undefined;
  storageKey: string;
  bootstrap: { url: string; urlHeaders: Record<string, string> } | undefined;
  logger: Logger;
  observer: SyncObserver;
}

type Source = "upstream" | "storage" | "bootstrap";

/** A failure worth one error line per streak rather than one per poll. */
type Problem = "refused" | "missing";

const DELTA_TYPES = new Set([
  "hydration",
  "feature-updated",
  "feature-removed",
  "segment-updated",
  "segment-removed",
]);

/** Failures in a row, none of them after an event, before a stream gives way to polling. */
const STREAM_FAILURES = 5;
/** The longest pause before reconnecting a stream. */
const STREAM_BACKOFF_MAX_MS = 30_000;

/**
 * Keeps the compiled configuration current. It follows the upstream service's event stream,
 * or polls it where there is none, compiles what arrives outside any request, and swaps the
 * snapshot reference in one assignment, so a request sees either the old configuration or
 * the new one, never a mix. Until the first configuration arrives (from upstream, storage or
 * bootstrap) there is no snapshot and the proxy is not ready.
 */
export class FeatureSync implements ConfigSource {
  private current: Snapshot | undefined;
  private etag: string | undefined;
  private hasUpstreamData = false;
  private lastPollFailed = false;
  private problem: Problem | undefined;
  private stored: Promise<ClientFeatures | undefined> = Promise.resolve(undefined);
  private storedOffered = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private mode: "streaming" | "polling" = "polling";
  /** Ends the stream being followed; replaced for each connection. */
  private streamAbort = new AbortController();
  private lastEventId: string | undefined;
  private streamRetry: NodeJS.Timeout | undefined;
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
    if (this.options.streaming) void this.follow();
    else this.startPolling();
    void this.bootstrap();
  }

  /** Stops polling; resolves once the configuration being saved, if any, is on disk. */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.streamRetry);
    this.streamAbort.abort();
    return this.saving;
  }

  private async poll(): Promise<void> {
    try {
      await this.pollOnce();
    } catch (error) {
      this.options.logger.error(`Cannot apply the upstream configuration: ${(error as Error).message}`);
    } finally {
      if (!this.stopped && this.mode === "polling") {
        this.timer = setTimeout(() => void this.poll(), this.backoff.delay);
        this.timer.unref();
      }
    }
  }

  private startPolling(): void {
    this.mode = "polling";
    void this.poll();
  }

  /**
   * Follows the upstream's event stream, reconnecting with `Last-Event-ID` after a break
   * (the upstream then sends only what was missed) with a growing pause; polls instead when
   * the upstream has no stream, refuses one, or fails too often, and tries again later.
   */
  private async follow(): Promise<void> {
    this.mode = "streaming";
    clearTimeout(this.timer);
    let failures = 0;
    while (!this.stopped) {
      this.streamAbort = new AbortController();
      let received = false;
      const end = await this.options.upstream.stream(
        this.lastEventId,
        (event) => {
          if (this.receive(event)) received = true;
        },
        this.streamAbort.signal,
      );
      if (this.stopped || end.outcome === "stopped") return;
      failures = received ? 1 : failures + 1;
      if (end.outcome !== "failed" || failures >= STREAM_FAILURES) return this.fallBack(end);
      this.options.logger.warn(`The upstream stream broke (${end.reason}); reconnecting`);
      this.lastPollFailed = true;
      void this.offerStored();
      const pause = Math.min(STREAM_BACKOFF_MAX_MS, 100 * 2 ** failures);
      await new Promise((resolve) => {
        this.streamRetry = setTimeout(resolve, pause);
        this.streamRetry.unref();
      });
    }
  }

  /** Polls for a while, then tries the stream again. */
  private fallBack(end: StreamEnd): void {
    const { logger, streamRetryMs } = this.options;
    const why =
      end.outcome === "unavailable"
        ? `the upstream has no event stream (it answered HTTP ${end.status})`
        : end.outcome === "denied"
          ? `the upstream refused the API token for its stream (HTTP ${end.status})`
          : end.outcome === "full"
            ? "the upstream holds as many streams as it may (HTTP 429)"
            : end.outcome === "polling"
              ? "the upstream asked to be polled"
              : `the stream failed ${STREAM_FAILURES} times in a row (${end.outcome === "failed" ? end.reason : ""})`;
    // An upstream without streams is routine (unleash-server's open-source edition); the rest is news.
    const log = end.outcome === "unavailable" ? logger.info.bind(logger) : logger.warn.bind(logger);
    log(
      `Polling the upstream every ${this.options.refreshInterval} ms: ${why}; trying the stream again in ${streamRetryMs} ms`,
    );
    this.lastEventId = undefined;
    this.startPolling();
    this.streamRetry = setTimeout(() => void this.follow(), streamRetryMs);
    this.streamRetry.unref();
  }

  /**
   * One event of the stream: the delta events it carries, applied to the configuration in
   * service. An event that cannot be read ends the stream, which reconnects without
   * `Last-Event-ID` to be sent everything again. Returns whether it brought a configuration.
   */
  private receive(event: StreamEvent): boolean {
    if (event.type !== "unleash-connected" && event.type !== "unleash-updated") return false;
    const events = (JSON.parse(event.data) as { events?: unknown }).events;
    if (!Array.isArray(events) || events.some((item) => !DELTA_TYPES.has((item as DeltaEvent)?.type))) {
      this.lastEventId = undefined;
      throw new Error(`an ${event.type} event the proxy cannot read`);
    }
    const deltas = events as DeltaEvent[];
    // Replayed changes apply to what is served; anything else must start from a hydration.
    const base = deltas[0]?.type === "hydration" || this.hasUpstreamData ? this.current : undefined;
    if (!base && deltas[0]?.type !== "hydration") {
      this.lastEventId = undefined;
      throw new Error("the stream sent changes before the configuration they change");
    }
    this.options.observer.fetched();
    this.recovered();
    if (event.id !== undefined) this.lastEventId = event.id;
    if (deltas.length === 0) return true;
    this.hasUpstreamData = true;
    this.use(
      base ? base.applyDelta(deltas) : compile({ events: deltas }, this.options.compileOptions),
      "upstream",
    );
    this.backup(this.current!.toClientFeatures());
    return true;
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
        observer.denied?.();
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
    this.use(compile(document, this.options.compileOptions), source);
  }

  private use(snapshot: Snapshot, source: Source): void {
    if (this.stopped) return;
    const first = this.current === undefined;
    this.current = snapshot;
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
