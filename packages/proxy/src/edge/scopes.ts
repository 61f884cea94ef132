import { createHash } from "node:crypto";
import { type CompileOptions, compile, type DeltaEvent, type Snapshot } from "@signalbox/engine";
import { bodyWithEtag } from "../etag.js";
import type { Logger } from "../logger.js";
import type { ConfigSource } from "../source.js";
import { FeatureSync, type SyncObserver, type SyncOptions } from "../sync.js";
import type { SerializedResponse } from "../toggles.js";
import { Upstream, type UpstreamSettings } from "../upstream.js";
import type { KnownToken } from "./tokens.js";

/** Serialised documents kept per configuration, one per distinct SDK filter. */
const FILTERS_KEPT = 64;
/** Revisions whose changes a scope remembers, for SDKs that poll deltas or reconnect a stream. */
const HISTORY = 100;

/** What a delta request or a stream's first event gets: changes since a revision, or everything. */
export interface Changes {
  revision: number;
  events: DeltaEvent[];
}

export interface ScopeSettings {
  compileOptions: CompileOptions;
  /** Told of every configuration fetched and installed, for the operational metrics. */
  observer: SyncObserver;
  /**
   * Where a scope's configuration comes from: followed upstream with `secret`, or a file.
   * `label` names the scope in log lines; `key` is a stable name for its backup.
   */
  source: (secret: string, label: string, key: string, observer: SyncObserver) => ConfigSource;
}

/** A scope's configuration followed from the flag service with one of its client tokens. */
export function upstreamSource(
  settings: Omit<SyncOptions, "upstream" | "bootstrap" | "observer"> & {
    upstream: Omit<UpstreamSettings, "serviceApiToken" | "projectName" | "namePrefix" | "tags">;
  },
): ScopeSettings["source"] {
  return (secret, label, key, observer) => {
    const hash = createHash("sha256")
      .update(`${settings.upstream.serviceUrl}\n${key}`)
      .digest("hex")
      .slice(0, 12);
    return new FeatureSync({
      ...settings,
      upstream: new Upstream(
        {
          ...settings.upstream,
          serviceApiToken: secret,
          projectName: undefined,
          namePrefix: undefined,
          tags: [],
        },
        settings.outbound,
      ),
      // Each scope's backup apart: the prefix, then the scope's own part.
      storageKey: `${settings.storageKey}-scope-${hash}`,
      bootstrap: undefined,
      logger: scoped(settings.logger, label),
      observer,
    });
  };
}

const keyOf = (environment: string, projects: readonly string[]) => `${environment}|${projects.join(",")}`;

const covers = (projects: readonly string[], wanted: readonly string[]) =>
  projects.includes("*") || wanted.every((project) => projects.includes(project));

/** A logger that says which scope a line is about: a relay may follow many. */
function scoped(logger: Logger, label: string): Logger {
  const tag = (message: string) => `[${label}] ${message}`;
  return {
    debug: (message, ...args) => logger.debug(tag(message), ...args),
    info: (message, ...args) => logger.info(tag(message), ...args),
    warn: (message, ...args) => logger.warn(tag(message), ...args),
    error: (message, ...args) => logger.error(tag(message), ...args),
    fatal: (message, ...args) => logger.fatal(tag(message), ...args),
  };
}

/**
 * One environment and set of projects, as client tokens see it upstream: one configuration
 * followed with the first client token seen for it, compiled once and shared by every token
 * of the same scope. Each new configuration becomes a revision, with the changes that led
 * to it, so SDKs polling deltas or streaming get only what changed.
 */
export class Scope {
  private source: ConfigSource;
  /** The secret the source follows with, and the others of this scope seen since, to follow with when it is refused. */
  private secret: string;
  private readonly secrets = new Set<string>();
  /** The last configuration of a source given up, served until its successor has one. */
  private last: Snapshot | undefined;
  private started = false;
  private revision = 0;
  private previous: Snapshot | undefined;
  private readonly history: { revision: number; events: DeltaEvent[] }[] = [];
  private readonly listeners = new Set<(changes: Changes) => void>();
  private readonly documents = new WeakMap<Snapshot, Map<string, SerializedResponse>>();
  private readonly views = new WeakMap<Snapshot, Map<string, Snapshot>>();
  private readonly compileOptions: CompileOptions;

  constructor(
    readonly environment: string,
    readonly projects: readonly string[],
    secret: string,
    private readonly settings: ScopeSettings,
  ) {
    this.compileOptions = settings.compileOptions;
    this.secret = secret;
    this.secrets.add(secret);
    this.source = this.follow(secret);
  }

  /** Another token of this scope, kept to follow with should the current one be revoked. */
  seen(secret: string): void {
    this.secrets.add(secret);
  }

  /** Resolves once there is a configuration to serve. */
  get ready(): Promise<void> {
    return this.source.ready;
  }

  private follow(secret: string): ConfigSource {
    const { settings } = this;
    const label = `${this.environment} ${this.projects.join(",")}`;
    return settings.source(secret, label, keyOf(this.environment, this.projects), {
      fetched: () => settings.observer.fetched(),
      updated: () => {
        settings.observer.updated();
        this.advance();
      },
      // The token this scope was followed with is gone (revoked, rotated): another one of the
      // same scope takes over, and what was served stays in service meanwhile.
      denied: () => {
        this.secrets.delete(secret);
        const next = this.secrets.values().next().value;
        if (secret !== this.secret || next === undefined) return;
        this.last = this.snapshot;
        const previous = this.source;
        this.secret = next;
        this.source = this.follow(next);
        void previous.stop();
        if (this.started) this.source.start();
      },
    });
  }

  get snapshot(): Snapshot | undefined {
    return this.source.snapshot ?? this.last;
  }

  /**
   * The configuration as server-side SDKs read it, serialised once per snapshot and filter:
   * the SDK's own `project` and `namePrefix` filters narrow what its token sees.
   */
  document(filter: { projects?: readonly string[]; namePrefix?: string } = {}): SerializedResponse {
    const snapshot = this.snapshot!;
    const key = `${filter.projects?.join(",") ?? "*"}|${filter.namePrefix ?? ""}`;
    let documents = this.documents.get(snapshot);
    if (!documents) {
      documents = new Map();
      this.documents.set(snapshot, documents);
    }
    let document = documents.get(key);
    if (!document) {
      const { projects, namePrefix } = filter;
      const listing = snapshot.toClientFeatures();
      if (projects || namePrefix) {
        listing.features = listing.features.filter(
          (feature) =>
            (!projects || projects.includes(feature.project ?? "default")) &&
            (!namePrefix || feature.name.startsWith(namePrefix)),
        );
      }
      document = bodyWithEtag(JSON.stringify(listing));
      // SDKs choose their filters: only so many are kept per configuration.
      if (documents.size < FILTERS_KEPT) documents.set(key, document);
    }
    return document;
  }

  /** The configuration narrowed to some of its projects (a frontend token's), compiled once per snapshot. */
  view(projects: readonly string[]): Snapshot {
    const snapshot = this.snapshot!;
    if (covers(projects, this.projects)) return snapshot;
    const key = projects.join(",");
    let views = this.views.get(snapshot);
    if (!views) {
      views = new Map();
      this.views.set(snapshot, views);
    }
    let view = views.get(key);
    if (!view) {
      const { features, segments } = snapshot.toClientFeatures();
      view = compile(
        {
          version: 2,
          features: features.filter((feature) => projects.includes(feature.project ?? "default")),
          segments,
        },
        this.compileOptions,
      );
      views.set(key, view);
    }
    return view;
  }

  /**
   * The changes after `since` while they are remembered, else a hydration; no events when
   * `since` is the current revision.
   */
  changes(since: number | undefined): Changes {
    const revision = this.revision;
    if (since === revision) return { revision, events: [] };
    const oldest = this.history[0]?.revision;
    if (since !== undefined && since < revision && oldest !== undefined && since >= oldest - 1) {
      return {
        revision,
        events: this.history.filter((entry) => entry.revision > since).flatMap((e) => e.events),
      };
    }
    const { features, segments } = this.snapshot!.toClientFeatures();
    return {
      revision,
      events: [{ type: "hydration", eventId: revision, features, segments: segments ?? [] }],
    };
  }

  /** Calls `listener` with each revision's changes; returns what stops it. */
  listen(listener: (changes: Changes) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.started = true;
    this.source.start();
  }

  stop(): Promise<void> {
    this.listeners.clear();
    return this.source.stop();
  }

  private advance(): void {
    const current = this.snapshot!;
    const previous = this.previous;
    this.previous = current;
    this.revision++;
    if (!previous) return;
    const events = current.changesSince(previous, this.revision);
    this.history.push({ revision: this.revision, events });
    if (this.history.length > HISTORY) this.history.shift();
    if (events.length === 0) return;
    for (const listener of this.listeners) listener({ revision: this.revision, events });
  }
}

/**
 * The scopes a relay follows, one per distinct environment and project set of the client
 * tokens it has seen, created on a token's first request and kept while the relay runs.
 */
export class Scopes {
  private readonly scopes = new Map<string, Scope>();
  private stopped = false;

  constructor(private readonly settings: ScopeSettings) {}

  /** The scope a client token reads, followed from now on with that token if it is new. */
  forClient(token: KnownToken): Scope {
    const key = keyOf(token.environment, token.projects);
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = new Scope(token.environment, token.projects, token.secret, this.settings);
      this.scopes.set(key, scope);
      if (!this.stopped) scope.start();
    } else {
      scope.seen(token.secret);
    }
    return scope;
  }

  /**
   * The scope a frontend token is evaluated from: a client token's scope of the same
   * environment that sees every project it does (the same projects first). Frontend tokens
   * cannot read configurations upstream, so one is needed.
   */
  forFrontend(token: KnownToken): Scope | undefined {
    const exact = this.scopes.get(keyOf(token.environment, token.projects));
    if (exact) return exact;
    for (const scope of this.scopes.values()) {
      if (scope.environment === token.environment && covers(scope.projects, token.projects)) return scope;
    }
    return undefined;
  }

  get size(): number {
    return this.scopes.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.scopes.values()].map((scope) => scope.stop()));
  }
}
