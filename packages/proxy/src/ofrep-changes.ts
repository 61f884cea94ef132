import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { openEventStream, writeEvent } from "./sse.js";

export interface OfrepChangeLimits {
  /** Streams held at once; past it 429, and providers keep polling. */
  maxStreams: number;
  keepAliveMs: number;
}

/**
 * OpenFeature's change notification (OFREP, ADR-0008): server-sent events that tell
 * providers to fetch their bulk evaluation again after the proxy's configuration changed.
 * Notification only: each event is `{"type":"refetchEvaluation","etag","lastModified"}`
 * with the configuration's revision, and no evaluation travels on the stream.
 */
export class OfrepChanges {
  private readonly streams = new Set<ServerResponse>();
  private revision = 0;
  private changedAt = Math.floor(Date.now() / 1000);
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(private readonly limits: OfrepChangeLimits) {}

  get full(): boolean {
    return this.streams.size >= this.limits.maxStreams;
  }

  /** A new configuration is served: every stream hears of it. */
  changed(): void {
    this.revision++;
    this.changedAt = Math.floor(Date.now() / 1000);
    const event = this.event();
    for (const response of this.streams) this.send(response, event);
  }

  /** `headers` are the ones the route set so far (CORS above all: browsers read this stream from other origins). */
  open(response: ServerResponse, lastEventId: string | undefined, headers: OutgoingHttpHeaders = {}): void {
    openEventStream(response, headers);
    this.streams.add(response);
    response.once("close", () => this.forget(response));
    response.on("error", () => this.forget(response));
    // A provider that missed a change while away hears of it at once.
    if (lastEventId !== undefined && lastEventId !== String(this.revision)) this.send(response, this.event());
    else response.write(": connected\n\n");
    if (!this.keepAlive) {
      this.keepAlive = setInterval(() => {
        for (const stream of this.streams) this.send(stream, ": keep-alive\n\n");
      }, this.limits.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  close(): void {
    for (const response of this.streams) response.end();
    this.streams.clear();
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  private event(): string {
    const data = { type: "refetchEvaluation", etag: String(this.revision), lastModified: this.changedAt };
    return `id: ${this.revision}\nevent: message\ndata: ${JSON.stringify(data)}\n\n`;
  }

  private send(response: ServerResponse, bytes: string): void {
    if (!writeEvent(response, bytes)) this.forget(response);
  }

  private forget(response: ServerResponse): void {
    this.streams.delete(response);
    if (this.streams.size === 0) {
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
  }
}
