import type { ClientFeatures } from "@signalbox/engine";
import type { TagFilter } from "./config.js";
import type { Outbound } from "./outbound.js";
import { SDK_NAME, SPEC_VERSION } from "./version.js";

export type FetchResult =
  | { outcome: "changed"; document: ClientFeatures; etag: string | undefined }
  | { outcome: "unchanged" }
  | { outcome: "denied"; status: number }
  /** 404 for the features path: the service URL points somewhere else than the flag service's API. */
  | { outcome: "missing"; url: string }
  | { outcome: "failed"; reason: string };

export type PostResult =
  | { outcome: "sent" }
  | { outcome: "denied"; status: number }
  /** A 4xx about the request itself (too large, invalid): sending it again cannot help. */
  | { outcome: "refused"; status: number }
  | { outcome: "failed"; reason: string };

/** Why a stream from the upstream ended. */
export type StreamEnd =
  /** 404 (or another answer than a stream): the upstream does not stream (unleash-server's open-source edition, say). */
  | { outcome: "unavailable"; status: number }
  | { outcome: "denied"; status: number }
  /** 429: the upstream holds as many streams as it may, and asks SDKs to poll. */
  | { outcome: "full" }
  /** The upstream asked to be polled (a `fetch-mode: polling` event). */
  | { outcome: "polling" }
  | { outcome: "failed"; reason: string }
  /** Ended by the caller. */
  | { outcome: "stopped" };

/** One server-sent event. */
export interface StreamEvent {
  type: string;
  id: string | undefined;
  data: string;
}

/** Keep-alives come every 30 s: a stream silent for twice that is gone, whatever the socket says. */
const STREAM_SILENCE_MS = 60_000;

export interface UpstreamSettings {
  serviceUrl: string;
  serviceApiToken: string;
  serviceAppName: string;
  serviceInstanceId: string;
  connectionId: string;
  refreshInterval: number;
  metricsInterval: number;
  projectName: string | undefined;
  namePrefix: string | undefined;
  tags: TagFilter[];
}

const isDenied = (status: number) => status === 401 || status === 403;
// Timeouts and rate limits are 4xx that pass: a later try may well succeed.
const isRefused = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

function isDocument(value: unknown): value is ClientFeatures {
  return typeof value === "object" && value !== null && Array.isArray((value as ClientFeatures).features);
}

/** The flag service's SDK API, as the proxy uses it: features, registration and usage metrics. */
export class Upstream {
  private readonly featuresUrl: string;
  private readonly streamingUrl: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly outbound: Outbound,
  ) {
    const query = new URLSearchParams();
    if (settings.projectName) query.set("project", settings.projectName);
    if (settings.namePrefix) query.set("namePrefix", settings.namePrefix);
    for (const tag of settings.tags) query.append("tag", `${tag.name}:${tag.value}`);
    const search = query.size > 0 ? `?${query}` : "";
    this.featuresUrl = `${settings.serviceUrl}/client/features${search}`;
    this.streamingUrl = `${settings.serviceUrl}/client/streaming${search}`;
    this.headers = {
      authorization: settings.serviceApiToken,
      "user-agent": settings.serviceAppName,
      "unleash-appname": settings.serviceAppName,
      "unleash-instanceid": settings.serviceInstanceId,
      "unleash-connection-id": settings.connectionId,
      "unleash-sdk": SDK_NAME,
      "unleash-client-spec": SPEC_VERSION,
    };
  }

  async fetchFeatures(etag: string | undefined): Promise<FetchResult> {
    const headers: Record<string, string> = {
      ...this.headers,
      "unleash-interval": String(this.settings.refreshInterval),
    };
    if (etag) headers["if-none-match"] = etag;
    try {
      const response = await this.outbound.send(this.featuresUrl, "GET", headers);
      if (response.statusCode === 200) {
        const document: unknown = JSON.parse(response.body);
        if (!isDocument(document)) return { outcome: "failed", reason: "the response has no features list" };
        const tag = response.headers.etag;
        return { outcome: "changed", document, etag: typeof tag === "string" ? tag : undefined };
      }
      if (response.statusCode === 304) return { outcome: "unchanged" };
      if (isDenied(response.statusCode)) return { outcome: "denied", status: response.statusCode };
      if (response.statusCode === 404) return { outcome: "missing", url: this.featuresUrl };
      return { outcome: "failed", reason: `HTTP ${response.statusCode}` };
    } catch (error) {
      return { outcome: "failed", reason: (error as Error).message };
    }
  }

  /**
   * Follows the upstream's event stream (`/client/streaming`), handing each event over as it
   * arrives, until the stream ends; resolves with why. `lastEventId` resumes where an
   * earlier stream stopped, so that the upstream sends only what was missed.
   */
  async stream(
    lastEventId: string | undefined,
    onEvent: (event: StreamEvent) => void,
    signal: AbortSignal,
  ): Promise<StreamEnd> {
    const headers: Record<string, string> = { ...this.headers, accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    let response: Awaited<ReturnType<Outbound["open"]>>;
    try {
      response = await this.outbound.open(this.streamingUrl, headers, signal);
    } catch (error) {
      return signal.aborted
        ? { outcome: "stopped" }
        : { outcome: "failed", reason: (error as Error).message };
    }
    const status = response.statusCode ?? 0;
    const isStream = String(response.headers["content-type"]).startsWith("text/event-stream");
    if (status !== 200 || !isStream) {
      response.resume();
      if (isDenied(status)) return { outcome: "denied", status };
      if (status === 429) return { outcome: "full" };
      // As the SDKs judge: an overloaded or restarting upstream is worth reconnecting to;
      // any other answer (404 above all) means there is no stream to follow here.
      if (status === 408 || (status >= 500 && status !== 501))
        return { outcome: "failed", reason: `HTTP ${status}` };
      return { outcome: "unavailable", status };
    }
    return new Promise<StreamEnd>((resolve) => {
      let buffered = "";
      let ended: StreamEnd | undefined;
      const finish = (end: StreamEnd) => {
        ended ??= end;
        clearTimeout(silence);
        response.destroy();
        resolve(ended);
      };
      let silence = setTimeout(
        () => finish({ outcome: "failed", reason: "the stream fell silent" }),
        STREAM_SILENCE_MS,
      );
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        silence.refresh();
        buffered += chunk.replace(/\r\n?/g, "\n");
        for (let end = buffered.indexOf("\n\n"); end !== -1; end = buffered.indexOf("\n\n")) {
          const event = parseEvent(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          if (!event) continue;
          if (event.type === "fetch-mode" && event.data === "polling") return finish({ outcome: "polling" });
          try {
            onEvent(event);
          } catch (error) {
            return finish({ outcome: "failed", reason: (error as Error).message });
          }
        }
      });
      response.once("error", (error) =>
        finish(signal.aborted ? { outcome: "stopped" } : { outcome: "failed", reason: error.message }),
      );
      response.once("end", () => finish({ outcome: "failed", reason: "the upstream ended the stream" }));
      response.once("close", () =>
        finish(
          signal.aborted ? { outcome: "stopped" } : { outcome: "failed", reason: "the connection closed" },
        ),
      );
      silence = silence.unref();
    });
  }

  get serviceUrl(): string {
    return this.settings.serviceUrl;
  }

  register(body: unknown): Promise<PostResult> {
    return this.post("/client/register", body);
  }

  sendMetrics(body: unknown): Promise<PostResult> {
    return this.post("/client/metrics", body);
  }

  private async post(path: string, body: unknown): Promise<PostResult> {
    const headers = {
      ...this.headers,
      "content-type": "application/json",
      "unleash-interval": String(this.settings.metricsInterval),
    };
    try {
      const response = await this.outbound.send(
        `${this.settings.serviceUrl}${path}`,
        "POST",
        headers,
        JSON.stringify(body),
      );
      if (response.statusCode >= 200 && response.statusCode < 300) return { outcome: "sent" };
      if (isDenied(response.statusCode)) return { outcome: "denied", status: response.statusCode };
      if (isRefused(response.statusCode)) return { outcome: "refused", status: response.statusCode };
      return { outcome: "failed", reason: `HTTP ${response.statusCode}` };
    } catch (error) {
      return { outcome: "failed", reason: (error as Error).message };
    }
  }
}

/** Reads a features document from the bootstrap URL; throws with the reason when it cannot. */
export async function fetchBootstrap(outbound: Outbound, url: string, headers: Record<string, string>) {
  const response = await outbound.send(url, "GET", { accept: "application/json", ...headers });
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
  const document: unknown = JSON.parse(response.body);
  if (!isDocument(document)) throw new Error("the response has no features list");
  return document;
}

/** One block of an event stream: its event name (`message` when none), id and data lines joined. */
function parseEvent(block: string): StreamEvent | undefined {
  let type = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    else if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 || type !== "message" ? { type, id, data: data.join("\n") } : undefined;
}
