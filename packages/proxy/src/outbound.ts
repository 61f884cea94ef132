import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";

const REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };
// A keep-alive connection the server closed while it sat idle fails at once, before any answer.
const STALE_CONNECTION = new Set(["ECONNRESET", "EPIPE"]);

export interface OutboundOptions {
  rejectUnauthorized: boolean;
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

/** An answer read to its end. */
export interface OutboundResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface NoProxyEntry {
  hostname: string;
  /** 0 for every port. */
  port: number;
}

/** NO_PROXY as curl and undici read it: hosts and their subdomains, a leading `.` or `*.` ignored, `:port` optional, `*` for all. */
function parseNoProxy(value: string): NoProxyEntry[] | "all" {
  if (value.trim() === "*") return "all";
  return value
    .split(/[,\s]/)
    .filter(Boolean)
    .map((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      return {
        hostname: (parsed ? parsed[1]! : entry).replace(/^\*?\./, "").toLowerCase(),
        port: parsed ? Number.parseInt(parsed[2]!, 10) : 0,
      };
    });
}

/** A proxy's URL (configuration took only http and https ones), or undefined for none. */
const proxyUrl = (value: string | undefined) => (value ? new URL(value) : undefined);

/** Headers the proxy itself reads: credentials given in its URL. */
function proxyHeaders(proxy: URL): Record<string, string> {
  if (!proxy.username || !proxy.password) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** `[::1]` as TLS and sockets want it. */
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

/** Where to connect for a URL; credentials in it are left out, as undici left them. */
const endpoint = (url: URL) => ({
  protocol: url.protocol,
  hostname: bare(url.hostname),
  port: url.port || DEFAULT_PORTS[url.protocol],
  path: `${url.pathname}${url.search}`,
});

/**
 * Every outgoing call goes through here, on Node's own HTTP client: HTTPS_PROXY for https
 * targets (HTTP_PROXY when it is unset), through a CONNECT tunnel; HTTP_PROXY for http targets,
 * as plain forward requests (many proxies refuse CONNECT to anything but port 443); NO_PROXY
 * exempting hosts; and the certificate policy of `httpOptions`, for targets and proxies alike.
 */
export class Outbound {
  private readonly rejectUnauthorized: boolean;
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent: HttpsAgent;
  private readonly httpProxy: URL | undefined;
  private readonly httpsProxy: URL | undefined;
  private readonly noProxy: NoProxyEntry[] | "all";
  private readonly inFlight = new Set<ClientRequest>();
  private closed = false;

  constructor({ rejectUnauthorized, httpProxy, httpsProxy, noProxy }: OutboundOptions) {
    this.rejectUnauthorized = rejectUnauthorized;
    this.httpsAgent = new HttpsAgent({ keepAlive: true, rejectUnauthorized });
    this.httpProxy = proxyUrl(httpProxy);
    this.httpsProxy = proxyUrl(httpsProxy) ?? this.httpProxy;
    this.noProxy = parseNoProxy(noProxy ?? "");
  }

  async send(
    url: string,
    method: "GET" | "POST",
    headers: Record<string, string>,
    body?: string,
  ): Promise<OutboundResponse> {
    const start = await this.starter(url, method, headers, AbortSignal.timeout(REQUEST_TIMEOUT_MS));
    return this.exchange(start, body);
  }

  /**
   * A GET whose answer is handed over as it arrives, for event streams: only connecting is
   * timed; the caller reads the body, and ends it with `signal`.
   */
  async open(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
    const connecting = AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const start = await this.starter(url, "GET", headers, signal);
    return new Promise((resolve, reject) => {
      const request = start();
      this.inFlight.add(request);
      request.once("close", () => this.inFlight.delete(request));
      const timeout = () => request.destroy(new Error("no answer in time"));
      connecting.addEventListener("abort", timeout, { once: true });
      request.once("error", reject);
      request.once("response", (response) => {
        connecting.removeEventListener("abort", timeout);
        resolve(response);
      });
      request.end();
    });
  }

  /** How to start a request to `url`: directly, forwarded by an HTTP proxy, or through a tunnel. */
  private async starter(
    url: string,
    method: "GET" | "POST",
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<() => ClientRequest> {
    if (this.closed) throw new Error("the proxy is closing");
    const target = new URL(url);
    const proxy = this.proxyFor(target);
    if (proxy === undefined) {
      const request = target.protocol === "https:" ? httpsRequest : httpRequest;
      const agent = target.protocol === "https:" ? this.httpsAgent : this.httpAgent;
      return () => request({ ...endpoint(target), method, headers, agent, signal });
    }
    if (target.protocol === "http:") {
      const request = proxy.protocol === "https:" ? httpsRequest : httpRequest;
      const agent = proxy.protocol === "https:" ? this.httpsAgent : this.httpAgent;
      const forwarded = { ...headers, ...proxyHeaders(proxy), host: target.host };
      return () =>
        request({ ...endpoint(proxy), path: target.href, method, headers: forwarded, agent, signal });
    }
    const socket = await this.tunnel(proxy, target, signal);
    const servername = isIP(bare(target.hostname)) ? undefined : bare(target.hostname);
    return () =>
      httpsRequest({
        ...endpoint(target),
        method,
        headers,
        signal,
        // Without an agent, Node's client takes this connection rather than opening its own.
        createConnection: () =>
          tlsConnect({ socket, servername, rejectUnauthorized: this.rejectUnauthorized }),
      });
  }

  /** Aborts whatever is still in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const request of this.inFlight) request.destroy(new Error("the proxy is closing"));
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private proxyFor(target: URL): URL | undefined {
    const proxy = target.protocol === "https:" ? this.httpsProxy : this.httpProxy;
    if (proxy === undefined || this.noProxy === "all") return undefined;
    // Stripped this way rather than read from `hostname`, so that an IPv6 address keeps its brackets.
    const hostname = target.host.replace(/:\d*$/, "").toLowerCase();
    const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
    const exempt = this.noProxy.some(
      (entry) =>
        (entry.port === 0 || entry.port === port) &&
        (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)),
    );
    return exempt ? undefined : proxy;
  }

  /** A CONNECT tunnel through the proxy to the target's host and port. */
  private tunnel(proxy: URL, target: URL, signal: AbortSignal): Promise<Socket> {
    const authority = target.port ? target.host : `${target.host}:${DEFAULT_PORTS[target.protocol]}`;
    const request = (proxy.protocol === "https:" ? httpsRequest : httpRequest)({
      ...endpoint(proxy),
      method: "CONNECT",
      path: authority,
      headers: { ...proxyHeaders(proxy), host: authority },
      agent: false,
      signal,
      rejectUnauthorized: this.rejectUnauthorized,
    });
    return new Promise((resolve, reject) => {
      request.once("connect", (response, socket: Socket) => {
        if (response.statusCode === 200) return resolve(socket);
        socket.destroy();
        reject(new Error(`Proxy response (${response.statusCode}) !== 200 when HTTP Tunneling`));
      });
      request.once("error", reject);
      request.end();
    });
  }

  /**
   * Sends a request and reads its answer whole. A request that went out on a kept-alive
   * connection the server had meanwhile closed is sent once more, on a new one.
   */
  private exchange(
    start: () => ClientRequest,
    body: string | undefined,
    retry = true,
  ): Promise<OutboundResponse> {
    return new Promise((resolve, reject) => {
      const request = start();
      let answered = false;
      this.inFlight.add(request);
      request.once("close", () => this.inFlight.delete(request));
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (retry && !answered && request.reusedSocket && STALE_CONNECTION.has(error.code ?? "")) {
          resolve(this.exchange(start, body, false));
        } else {
          reject(error);
        }
      });
      request.once("response", (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.once("end", () =>
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      });
      request.end(body);
    });
  }
}
