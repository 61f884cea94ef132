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
