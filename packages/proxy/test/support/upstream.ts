import { EventEmitter, once } from "node:events";
import { readFileSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { ClientFeatures } from "@signalbox/engine";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Empty when longer than `keepBodiesUpTo`. */
  body: string;
  /** The body's length in characters, kept also when the body is not. */
  size: number;
  /** The status this fake answered with. */
  status: number;
  /** When it arrived, in milliseconds of performance.now(). */
  at: number;
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));

/**
 * A stand-in flag service on a random port: serves a features document with ETags,
 * accepts registrations and metrics, records every request, and can be told to fail.
 */
export class FakeUpstream {
  readonly requests: RecordedRequest[] = [];
  /** Status to answer instead of the normal response, per path (e.g. "/api/client/features"). */
  readonly faults = new Map<string, number>();
  /** Extra paths serving a fixed document, e.g. a bootstrap source. */
  readonly documents = new Map<string, ClientFeatures>();
  /** Bodies longer than this are counted, not kept, so a flood sent here does not fill the test's memory. */
  keepBodiesUpTo = Number.POSITIVE_INFINITY;
  private readonly events = new EventEmitter();
  private revision = 1;
  /** Open event streams, when `streaming` is on; otherwise the stream path answers 404. */
  private readonly streams = new Set<ServerResponse>();
  streaming = false;
  url = "";

  private constructor(
    private document: ClientFeatures,
    private readonly server: Server,
  ) {
    // A sender that gives up mid-body (a timeout) is no failure of the fake.
    server.on("request", (request: IncomingMessage, response: ServerResponse) =>
      this.handle(request, response).catch(() => response.destroy()),
    );
  }

  static async start(document: ClientFeatures, { https = false } = {}): Promise<FakeUpstream> {
    const server = https
      ? createHttpsServer({ key: fixture("self-signed-key.pem"), cert: fixture("self-signed-cert.pem") })
      : createHttpServer();
    const upstream = new FakeUpstream(document, server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    upstream.url = `${https ? "https" : "http"}://127.0.0.1:${port}/api`;
    return upstream;
  }

  get etag(): string {
    return `"revision-${this.revision}"`;
  }

  setDocument(document: ClientFeatures): void {
    this.document = document;
    this.revision++;
  }

  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves with the first request (already received or coming) that matches. */
  async waitFor(
    predicate: (request: RecordedRequest) => boolean,
    what = "a request",
  ): Promise<RecordedRequest> {
    const seen = this.requests.find(predicate);
    if (seen) return seen;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off("request", listener);
        reject(new Error(`upstream never received ${what}`));
      }, 8000);
      const listener = (request: RecordedRequest) => {
        if (!predicate(request)) return;
        clearTimeout(timer);
        this.events.off("request", listener);
        resolve(request);
      };
      this.events.on("request", listener);
    });
  }

  /** Sends an event to every open stream. */
  sendEvent(type: string, id: number | undefined, data: unknown): void {
    const text = typeof data === "string" ? data : JSON.stringify(data);
    for (const stream of this.streams) {
      stream.write(`event: ${type}\n${id === undefined ? "" : `id: ${id}\n`}data: ${text}\n\n`);
    }
  }

  /** Ends every open stream, as a restarting service does. */
  endStreams(): void {
    for (const stream of this.streams) stream.end();
  }

  get openStreams(): number {
    return this.streams.size;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of request) body += chunk;
    const url = new URL(request.url ?? "/", "http://upstream");
    const fault = this.faults.get(url.pathname);
    if (fault !== undefined) response.writeHead(fault).end();
    else if (url.pathname === "/api/client/features") {
      if (request.headers["if-none-match"] === this.etag) response.writeHead(304).end();
      else {
        response.writeHead(200, { "content-type": "application/json", etag: this.etag });
        response.end(JSON.stringify(this.document));
      }
    } else if (url.pathname === "/api/client/streaming") {
      // Without `streaming`, as unleash-server's open-source edition answers: no stream here.
      if (!this.streaming) response.writeHead(404).end();
      else {
        response.writeHead(200, { "content-type": "text/event-stream" });
        this.streams.add(response);
        response.once("close", () => this.streams.delete(response));
      }
    } else if (this.documents.has(url.pathname)) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(this.documents.get(url.pathname)));
    } else response.writeHead(202).end();
    const recorded: RecordedRequest = {
      method: request.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: body.length > this.keepBodiesUpTo ? "" : body,
      size: body.length,
      status: response.statusCode,
      at: performance.now(),
    };
    this.requests.push(recorded);
    this.events.emit("request", recorded);
  }
}
