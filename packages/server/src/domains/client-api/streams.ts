import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Actor, TokenActor } from "../../access/actor.js";
import type { StreamSettings } from "../../config.js";
import type { Telemetry } from "../../telemetry.js";
import type { EventService } from "../events/service.js";
import type { ScopeQuery } from "./schemas.js";
import { listingKey, type Scope, scopeFor } from "./scope.js";
import type { ClientFeaturesService, Delta } from "./service.js";

/** What finds a secret's token again: the token cache, which every revocation empties. */
export type Authenticate = (secret: string) => Actor | undefined | Promise<Actor | undefined>;

/**
 * What a stream is for: an SDK's (Unleash's streaming protocol: the delta events) or an
 * OpenFeature provider's (OFREP's change notification: only "fetch again").
 */
export type StreamKind = "sdk" | "ofrep";

interface Stream {
  kind: StreamKind;
  response: ServerResponse;
  secret: string;
  query: ScopeQuery;
  scope: Scope;
  /** The listing key of the scope: streams sharing it and a revision get the same bytes. */
  key: string;
  /** The revision this stream's SDK has been brought up to. */
  revision: number;
}

export interface Opening {
  kind: StreamKind;
  secret: string;
  query: ScopeQuery;
  scope: Scope;
  first: Delta;
}

/** Scopes whose latest hydration is kept encoded; the oldest is dropped first. */
const HYDRATIONS_KEPT = 100;

/** Bytes a stream may leave unread before it is dropped: its SDK reconnects with Last-Event-ID. */
const BACKLOG_LIMIT = 8 * 1024 * 1024;

const frame = (type: string, delta: Delta) => {
  const last = delta.events.at(-1);
  const id = last ? `id: ${last.eventId}\n` : "";
  return `event: ${type}\n${id}data: ${JSON.stringify({ events: delta.events })}\n\n`;
};

/** OFREP's notification (ADR-0008): the revision is the etag, and the event's id to resume from. */
const refetch = (delta: Delta) =>
  `id: ${delta.revision}\nevent: message\ndata: ${JSON.stringify({ type: "refetchEvaluation", etag: String(delta.revision), lastModified: Math.floor(Date.now() / 1000) })}\n\n`;

/** The token types each kind of stream is for. */
const READERS: Record<StreamKind, readonly string[]> = { sdk: ["client", "admin"], ofrep: ["frontend"] };

/**
 * The streaming protocol (`/api/client/streaming`): each SDK's connection, and after every
 * revision the delta events its scope sees. A revision reaches this instance however it was
 * made, here or on another instance (through the change notifications), so every stream on
 * every instance hears of every change. Streams sharing a scope and a revision get one
 * encoding of their event.
 */
export class ClientStreams {
  private readonly streams = new Set<Stream>();
  private publishing: Promise<void> | undefined;
  private again = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly hydrations = new Map<string, { revision: number; bytes: string }>();

  constructor(
    private readonly features: ClientFeaturesService,
    events: EventService,
    private readonly authenticate: Authenticate,
    private readonly settings: StreamSettings,
    private readonly telemetry?: Telemetry,
  ) {
    events.onRevision(() => this.publish());
    // A revoked, expired or narrowed token ends its streams on every instance: each one's
    // token cache is emptied by the same notice.
    events.onCredentialsChanged(() => void this.revalidate());
  }

  get size(): number {
    return this.streams.size;
  }

  get full(): boolean {
    return this.streams.size >= this.settings.maxStreams;
  }

  /**
   * A stream's first event: a hydration, or the changes after `lastEventId` when this
   * instance still remembers them. Made before anything is sent, so that a failure is
   * answered as an error rather than as a stream that never speaks.
   */
  async prepare(
    token: TokenActor,
    secret: string,
    query: ScopeQuery,
    lastEventId: number | undefined,
    kind: StreamKind = "sdk",
  ): Promise<Opening> {
    const scope = scopeFor(token, query);
    return { kind, secret, query, scope, first: await this.features.delta(scope, lastEventId) };
  }

  /**
   * Sends the first event on a response whose headers are not yet sent, and keeps it open;
   * `headers` are the ones its route set so far (CORS, for a browser's EventSource).
   */
  start(
    response: ServerResponse,
    { kind, secret, query, scope, first }: Opening,
    headers: OutgoingHttpHeaders = {},
  ): void {
    response.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      // Proxies such as nginx would otherwise hold events back to fill a buffer.
      "x-accel-buffering": "no",
    });
    const stream: Stream = {
      kind,
      response,
      secret,
      query,
      scope,
      key: listingKey(scope, false),
      revision: first.revision,
    };
    // An OpenFeature provider fetches on connecting; it hears only of what it may have missed.
    if (kind === "sdk") this.send(stream, this.connected(stream.key, first));
    else
      this.send(
        stream,
        first.events.length > 0 && first.events[0]?.type !== "hydration" ? refetch(first) : ": connected\n\n",
      );
    this.streams.add(stream);
    this.telemetry?.clientStreams.inc();
    response.once("close", () => this.forget(stream));
    // A socket error ends the stream; unheard, it would end the process.
    response.on("error", () => this.forget(stream));
    this.startKeepAlive();
    // A revision that arrived while the first event was made is sent now.
    this.publish();
  }

  /**
   * The first event's bytes. SDKs of a deployment connect in waves (a rollout, a restart of
   * this instance), nearly all for a hydration of the same scope: that is encoded once per
   * scope and revision.
   */
  private connected(key: string, first: Delta): string {
    if (first.events[0]?.type !== "hydration") return frame("unleash-connected", first);
    const cached = this.hydrations.get(key);
    if (cached?.revision === first.revision) return cached.bytes;
    const bytes = frame("unleash-connected", first);
    if (this.hydrations.size >= HYDRATIONS_KEPT) this.hydrations.delete(this.hydrations.keys().next().value!);
    this.hydrations.set(key, { revision: first.revision, bytes });
    return bytes;
  }

  /** Ends every stream, as the instance shuts down: SDKs reconnect to another one. */
  close(): void {
    for (const stream of this.streams) this.end(stream);
    this.stopKeepAlive();
  }

  /**
   * Ends a stream and forgets it at once: nothing is written to it afterwards (a write
   * after the end is an error that would end the process), whatever pass is under way.
   */
  private end(stream: Stream): void {
    this.forget(stream);
    stream.response.end();
  }

  private forget(stream: Stream): void {
    if (this.streams.delete(stream)) this.telemetry?.clientStreams.dec();
    if (this.streams.size === 0) this.stopKeepAlive();
  }

  /** One pass at a time; a revision arriving meanwhile makes another pass. */
  private publish(): void {
    if (this.streams.size === 0) return;
    if (this.publishing) {
      this.again = true;
      return;
    }
    this.publishing = this.publishAll().finally(() => {
      this.publishing = undefined;
      if (this.again) {
        this.again = false;
        this.publish();
      }
    });
  }

  private async publishAll(): Promise<void> {
    const frames = new Map<string, Promise<{ delta: Delta; bytes: string | undefined }>>();
    for (const stream of this.streams) {
      const key = `${stream.kind}\n${stream.key}\n${stream.revision}`;
      let made = frames.get(key);
      if (!made) {
        made = this.features.delta(stream.scope, stream.revision).then((delta) => ({
          delta,
          bytes:
            delta.events.length === 0
              ? undefined
              : stream.kind === "sdk"
                ? frame("unleash-updated", delta)
                : refetch(delta),
        }));
        // A failed read (the database briefly away) is retried on the next revision or catch-up poll.
        made.catch(() => undefined);
        frames.set(key, made);
      }
      const sent = await made.catch(() => undefined);
      if (!sent) continue;
      if (sent.bytes !== undefined) this.send(stream, sent.bytes);
      stream.revision = sent.delta.revision;
    }
  }

  private send(stream: Stream, bytes: string): void {
    const { response } = stream;
    if (response.writableEnded || response.destroyed) return;
    // An SDK that stopped reading is dropped rather than buffered for without end.
    if (response.writableLength > BACKLOG_LIMIT) {
      this.forget(stream);
      response.destroy();
      return;
    }
    response.write(bytes);
  }

  /** Checks each stream's token again: one lookup per distinct secret. */
  private async revalidate(): Promise<void> {
    const bySecret = new Map<string, Stream[]>();
    for (const stream of this.streams) {
      const group = bySecret.get(stream.secret);
      if (group) group.push(stream);
      else bySecret.set(stream.secret, [stream]);
    }
    for (const [secret, streams] of bySecret) {
      let actor: Actor | undefined;
      try {
        actor = await this.authenticate(secret);
      } catch {
        continue;
      }
      for (const stream of streams) {
        const token =
          actor?.kind === "token" && READERS[stream.kind].includes(actor.type) ? actor : undefined;
        // A token whose scope changed reconnects, to be hydrated with what it now sees.
        if (!token || listingKey(scopeFor(token, stream.query), false) !== stream.key) this.end(stream);
      }
    }
  }

  private startKeepAlive(): void {
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      for (const stream of this.streams) this.send(stream, ": keep-alive\n\n");
      // Tokens also expire without any notice: checked as often as streams are kept alive.
      void this.revalidate();
    }, this.settings.keepAliveMs);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
