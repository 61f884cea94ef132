import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { gzipSync } from "node:zlib";
import ipaddr from "ipaddr.js";
import type { IntegrationSettings } from "../../config.js";

/** A request an addon sends for one event. */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Sent compressed (`content-encoding: gzip`), as New Relic's Event API takes it; logged as text. */
  gzip?: boolean;
  /** What it is for, when an event becomes several requests (a Slack channel). */
  target?: string;
  /** Whether a 2xx answer is a success: Slack says `ok: false` with a 200. */
  accepted?(status: number, body: string): boolean;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  ok: boolean;
  /** Worth trying again: the network, a timeout, 5xx, 429. */
  retryable: boolean;
  statusCode: number | null;
  response: string | null;
  error: string | null;
}

const EXCERPT = 500;
const MAX_READ = 64 * 1024;
const MAX_REDIRECTS = 3;

/** Why a destination is refused, said to the person who set it up. */
export class RefusedDestination extends Error {
  override name = "RefusedDestination";
}

/**
 * Where addons may send, and the sending. A destination whose host resolves to a private,
 * loopback, link-local or otherwise non-public address is refused (server-side request
 * forgery: an addon is a way to make the service send requests where its admin chooses),
 * unless the operator allows private addresses or lists the host. The check is made when
 * an addon is saved and again before every request, on the addresses the request then
 * connects to (the connection is pinned to the addresses checked, so a name cannot resolve
 * to a public address for the check and a private one for the connection), and on each
 * redirect, which is followed only when it keeps the method and body (307, 308).
 */
export class Outbound {
  constructor(private readonly settings: IntegrationSettings) {}

  /** Refuses a URL an addon may not send to; a host that does not resolve now is let through. */
  async check(raw: string): Promise<void> {
    const url = parse(raw);
    await this.addresses(url, { unresolvedIsFine: true });
  }

  /** Sends one request; never throws but when aborted. */
  async send(request: OutboundRequest, signal: AbortSignal): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = parse(request.url);
    } catch (error) {
      return failure((error as Error).message, false);
    }
    for (let hop = 0; ; hop += 1) {
      let addresses: string[];
      try {
        addresses = await this.addresses(url, { unresolvedIsFine: false });
      } catch (error) {
        signal.throwIfAborted();
        return failure((error as Error).message, !(error instanceof RefusedDestination));
      }
      let answer: { status: number; body: string; location: string | undefined };
      try {
        answer = await post(url, addresses, request, this.settings.timeoutMs, signal);
      } catch (error) {
        signal.throwIfAborted();
        return failure(describeNetworkError(error), true);
      }
      const { status, body, location } = answer;
      const excerpt = body.slice(0, EXCERPT);
      if ((status === 307 || status === 308) && location && hop < MAX_REDIRECTS) {
        try {
          url = parse(new URL(location, url).href);
          continue;
        } catch (error) {
          return {
            ok: false,
            retryable: false,
            statusCode: status,
            response: excerpt,
            error: (error as Error).message,
          };
        }
      }
      if (status >= 300 && status < 400) {
        const error = `redirect${location ? ` to ${new URL(location, url).origin}` : ""} not followed`;
        return { ok: false, retryable: false, statusCode: status, response: excerpt, error };
      }
      const ok = status >= 200 && status < 300 && (request.accepted?.(status, body) ?? true);
      return {
        ok,
        retryable: status >= 500 || status === 429,
        statusCode: status,
        response: excerpt,
        error: ok ? null : `answered ${status}`,
      };
    }
  }

  private allowedWhatever(url: URL): boolean {
    return this.settings.allowPrivateUrl || this.settings.allowList.includes(url.hostname.toLowerCase());
  }

  /** The addresses to connect to, each of them public unless the destination is allowed anyway. */
  private async addresses(url: URL, { unresolvedIsFine }: { unresolvedIsFine: boolean }): Promise<string[]> {
    // Allowed whatever it resolves to: a check has nothing to ask the resolver.
    if (unresolvedIsFine && this.allowedWhatever(url)) return [];
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
      } catch (error) {
        if (unresolvedIsFine) return [];
        throw new Error(`could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? error}`);
      }
    }
    if (this.allowedWhatever(url)) return addresses;
    const refused = addresses.find((address) => !isPublic(address));
    if (refused !== undefined) {
      throw new RefusedDestination(
        `${url.hostname} resolves to ${refused}, a private, loopback, link-local or reserved address: ` +
          "set UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION=true or list the host in UNLEASH_ALLOW_LIST_INTEGRATION to allow it",
      );
    }
    return addresses;
  }
}

function parse(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedDestination(`${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RefusedDestination(`only http and https URLs can be used, not ${url.protocol.slice(0, -1)}`);
  }
  return url;
}

/** Unicast on the public internet: every special-purpose range is refused (ipaddr.js names them). */
export function isPublic(address: string): boolean {
  try {
    return ipaddr.process(address).range() === "unicast";
  } catch {
    return false;
  }
}

function failure(error: string, retryable: boolean): AttemptOutcome {
  return { ok: false, retryable, statusCode: null, response: null, error };
}

function describeNetworkError(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ? `${code}: ${message}` : String(message ?? error);
}

/** A POST connected to the given addresses only, whatever the name resolves to by then. */
function post(
  url: URL,
  addresses: string[],
  request: OutboundRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ status: number; body: string; location: string | undefined }> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    const entries = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter((entry) => !options.family || entry.family === options.family);
    if (entries.length === 0) {
      callback(Object.assign(new Error(`no address for ${url.hostname}`), { code: "ENOTFOUND" }), "", 4);
    } else if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
  const client = url.protocol === "https:" ? https : http;
  const payload = request.gzip ? gzipSync(request.body) : Buffer.from(request.body);
  const headers = {
    ...request.headers,
    ...(request.gzip ? { "content-encoding": "gzip" } : {}),
    "content-length": payload.length.toString(),
  };
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      url,
      {
        method: "POST",
        headers,
        lookup: pinned,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size < MAX_READ) chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            location: response.headers.location,
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", (error) =>
      reject(
        error.name === "AbortError" && !signal.aborted
          ? Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "ETIMEDOUT" })
          : error,
      ),
    );
    outgoing.end(payload);
  });
}
