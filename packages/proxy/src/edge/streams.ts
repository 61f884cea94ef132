import type { ServerResponse } from "node:http";
import { openEventStream, writeEvent } from "../sse.js";
import type { Changes, Scope } from "./scopes.js";
import type { TokenCheck } from "./tokens.js";

interface Stream {
  response: ServerResponse;
  secret: string;
  stop: () => void;
}

export interface StreamLimits {
  /** Streams held at once; past it SDKs are told to poll (429). */
  maxStreams: number;
  keepAliveMs: number;
}

const frame = (type: string, changes: Changes) =>
  `event: ${type}\nid: ${changes.revision}\ndata: ${JSON.stringify({ events: changes.events })}\n\n`;

/**
 * The streaming protocol towards SDKs (`/api/client/streaming`), served from the proxy's own
 * scopes: the first event a hydration (or, after a reconnect whose `Last-Event-ID` the scope
 * still remembers, what was missed), then each revision's changes as the scope learns them.
 * A keep-alive comment every interval, at which each stream's token is checked again
 * upstream: a revoked token's stream ends, and its SDK's reconnection is refused.
 */
export class EdgeStreams {
  private readonly streams = new Set<Stream>();
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly validator: TokenCheck,
    private readonly limits: StreamLimits,
  ) {}

  get full(): boolean {
    return this.streams.size >= this.limits.maxStreams;
  }

  get size(): number {
    return this.streams.size;
  }

  open(response: ServerResponse, secret: string, scope: Scope, lastEventId: number | undefined): void {
    openEventStream(response);
    const stream: Stream = { response, secret, stop: () => undefined };
    const first = scope.changes(lastEventId);
    // Nothing missed: the SDK still hears that it is connected, with no events.
    this.send(stream, frame("unleash-connected", first));
    stream.stop = scope.listen((changes) => this.send(stream, frame("unleash-updated", changes)));
    this.streams.add(stream);
    response.once("close", () => this.forget(stream));
    response.on("error", () => this.forget(stream));
    this.startKeepAlive();
  }

  /** Ends every stream, as the proxy shuts down. */
  close(): void {
    for (const stream of this.streams) this.end(stream);
  }

  private end(stream: Stream): void {
    this.forget(stream);
    stream.response.end();
  }

  private forget(stream: Stream): void {
    stream.stop();
    this.streams.delete(stream);
    if (this.streams.size === 0) {
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
  }

  private send(stream: Stream, bytes: string): void {
    if (!writeEvent(stream.response, bytes)) this.forget(stream);
  }

  private startKeepAlive(): void {
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      const secrets = new Set<string>();
      for (const stream of this.streams) {
        this.send(stream, ": keep-alive\n\n");
        secrets.add(stream.secret);
      }
      for (const secret of secrets) void this.revalidate(secret);
    }, this.limits.keepAliveMs);
    this.keepAlive.unref();
  }

  private async revalidate(secret: string): Promise<void> {
    const validation = await this.validator.revalidate(secret);
    if (validation.outcome !== "invalid") return;
    for (const stream of this.streams) if (stream.secret === secret) this.end(stream);
  }
}
