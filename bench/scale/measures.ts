// Each phase of the scale benchmark against one running service. Every phase returns its
// figures and checks what it can of the answers, so that a fast failure is not a result.
import { request as httpRequest } from "node:http";
import { load } from "../lib/load.js";
import { cpuSeconds } from "../lib/process.js";
import { type FlagSpec, PROJECTS, TEAMS, WORDS } from "./data.js";
import type { Figures } from "./figures.js";
import { inParallel, must, send } from "./http.js";
import { type Service, TOKENS } from "./servers.js";

export interface Phase {
  service: Service;
  flags: FlagSpec[];
  personalToken: string;
  /** The length of each load and of each latency sample, in seconds. */
  seconds: number;
  connections: number;
  /** Lines worth keeping beside the figures: disagreements, failures. */
  note(line: string): void;
}

const isReference = (phase: Phase) => phase.service.name === "reference";

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * Latency of sequential GETs: one round over every path to warm up, then rounds until the
 * time is up (at least three). With a few dozen samples, p99 is close to the slowest.
 */
async function sample(phase: Phase, token: string, paths: string[]) {
  const { url } = phase.service;
  const times: number[] = [];
  const firsts: unknown[] = [];
  for (const path of paths) {
    const answer = await send(url, token, "GET", path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    firsts.push(JSON.parse(answer.text));
  }
  const cpuBefore = cpuSeconds(phase.service.pid);
  const deadline = performance.now() + phase.seconds * 1000;
  for (let round = 0; round < 3 || (performance.now() < deadline && round < 100); round++) {
    for (const path of paths) {
      const answer = await send(url, token, "GET", path);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status}`);
      times.push(answer.ms);
    }
  }
  const cpuMs = ((cpuSeconds(phase.service.pid) - cpuBefore) * 1000) / times.length;
  return { p50: percentile(times, 50), p99: percentile(times, 99), cpuMs, firsts };
}

export async function eventCount(phase: Phase): Promise<number> {
  if (isReference(phase)) {
    return (
      await must<{ total: number }>(
        phase.service.url,
        TOKENS.admin,
        "GET",
        "/api/admin/search/events?limit=1",
      )
    ).total;
  }
  return (
    await must<{ totalEvents: number }>(phase.service.url, TOKENS.admin, "GET", "/api/admin/events?limit=1")
  ).totalEvents;
}

export async function reads(phase: Phase): Promise<Figures> {
  const size = phase.flags.length;
  const listing = await sample(
    phase,
    TOKENS.admin,
    PROJECTS.map((project) => `/api/admin/projects/${project}/features`),
  );
  const counts = listing.firsts.map((body) => (body as { features: unknown[] }).features.length);
  phase.note(`project listings hold ${counts.reduce((a, b) => a + b, 0)} flags in all`);

  const searches = [
    "project=IS:scale-3",
    `query=${WORDS[0]}`,
    `tag=INCLUDE:simple:${TEAMS[2]}`,
    "type=IS:experiment&sortBy=createdAt&sortOrder=desc",
    "segment=INCLUDE:segment-4",
    "status=production:enabled&status=staging:enabled&project=IS:scale-1",
    `sortBy=name&sortOrder=asc&offset=${Math.floor(size / 2)}`,
  ];
  const search = await sample(
    phase,
    TOKENS.admin,
    searches.map((query) => `/api/admin/search/features?${query}&limit=50`),
  );
  phase.note(
    `flag search totals: ${searches.map((query, i) => `${query} ${(search.firsts[i] as { total: number }).total}`).join("; ")}`,
  );

  // The reference's event search is GET /api/admin/search/events with operator filters
  // (IS:…); Signalbox has the same filters on GET /api/admin/events.
  const name = phase.flags[Math.floor(size / 3)]!.name;
  const filters: [string, string][] = [
    ["project", "scale-2"],
    ["feature", name],
    ["type", "feature-strategy-add"],
  ];
  const events = [
    ...filters.map(([key, value]) => (isReference(phase) ? `${key}=IS:${value}` : `${key}=${value}`)),
    `query=${WORDS[1]}`,
    isReference(phase)
      ? "project=IS:scale-5&type=IS:feature-environment-enabled"
      : "project=scale-5&type=feature-environment-enabled",
    `offset=${size * 5}`,
  ];
  const eventPath = isReference(phase) ? "/api/admin/search/events" : "/api/admin/events";
  const eventSearch = await sample(
    phase,
    TOKENS.admin,
    events.map((query) => `${eventPath}?${query}&limit=50`),
  );
  phase.note(
    `event search totals: ${events
      .map((query, i) => {
        const body = eventSearch.firsts[i] as { total?: number; totalEvents?: number };
        return `${query} ${body.total ?? body.totalEvents}`;
      })
      .join("; ")}`,
  );
  return {
    listP50: listing.p50,
    listP99: listing.p99,
    listCpuMs: listing.cpuMs,
    searchP50: search.p50,
    searchP99: search.p99,
    searchCpuMs: search.cpuMs,
    eventSearchP50: eventSearch.p50,
    eventSearchP99: eventSearch.p99,
    eventSearchCpuMs: eventSearch.cpuMs,
  };
}

/** The bytes a GET sends over the wire, undecoded. */
function wireBytes(url: string, headers: Record<string, string>) {
  return new Promise<{ bytes: number; encoding: string | undefined }>((resolve, reject) => {
    const req = httpRequest(url, { headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => resolve({ bytes, encoding: response.headers["content-encoding"] }));
      response.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The SDK document: its size, and how long after a write the new document is served (from
 * sending the write to the first answer with a new ETag, polling every 5 ms with the old one).
 */
export async function document(phase: Phase, writes: number): Promise<Figures> {
  const { url } = phase.service;
  const features = `${url}/api/client/features`;
  const plain = await wireBytes(features, { authorization: TOKENS.client });
  const gzip = await wireBytes(features, { authorization: TOKENS.client, "accept-encoding": "gzip" });
  if (gzip.encoding !== "gzip")
    phase.note(`answers accept-encoding gzip with ${gzip.encoding ?? "no encoding"}`);
  const flag = phase.flags[0]!;
  let enabled = flag.environments.development.enabled;
  const times: number[] = [];
  for (let i = 0; i < writes; i++) {
    const before = await send(url, TOKENS.client, "GET", "/api/client/features");
    const etag = before.headers.get("etag") ?? "";
    const started = performance.now();
    enabled = !enabled;
    await must(
      url,
      TOKENS.admin,
      "POST",
      `/api/admin/projects/${flag.project}/features/${flag.name}/environments/development/${enabled ? "on" : "off"}`,
    );
    for (;;) {
      const answer = await send(url, TOKENS.client, "GET", "/api/client/features", undefined, {
        "if-none-match": etag,
      });
      const now = answer.headers.get("etag");
      if (answer.status === 200 && now !== etag) {
        const served = (
          JSON.parse(answer.text) as { features: { name: string; enabled: boolean }[] }
        ).features.find((feature) => feature.name === flag.name);
        if (served?.enabled !== enabled)
          phase.note(`the new document does not show ${flag.name} switched yet`);
        break;
      }
      if (performance.now() - started > 120_000) throw new Error("no new document within 120 s of a write");
      await sleep(5);
    }
    times.push(performance.now() - started);
  }
  return {
    documentBytes: plain.bytes / 1024,
    documentGzipBytes: gzip.bytes / 1024,
    propagationMs: percentile(times, 50),
    propagationMaxMs: Math.max(...times),
  };
}

async function loadRow(phase: Phase, path: string, headers: Record<string, string>, label: string) {
  const requests = [{ method: "GET" as const, path, headers }];
  await load(phase.service.url, requests, phase.connections, 1); // warm-up
  const cpuBefore = cpuSeconds(phase.service.pid);
  const result = await load(phase.service.url, requests, phase.connections, phase.seconds);
  const cpuMs =
    ((cpuSeconds(phase.service.pid) - cpuBefore) * 1000) / (result.requestsPerSecond * phase.seconds);
  if (result.failures > 0)
    phase.note(`${label}: ${result.failures} failures ${JSON.stringify(result.failureKinds)}`);
  return { ...result, cpuMs };
}

export async function sdkReads(phase: Phase): Promise<Figures> {
  const features = "/api/client/features";
  const full = await loadRow(phase, features, { authorization: TOKENS.client }, "client features");
  const gzip = await loadRow(
    phase,
    features,
    { authorization: TOKENS.client, "accept-encoding": "gzip" },
    "client features gzip",
  );
  const etag = (await send(phase.service.url, TOKENS.client, "GET", features)).headers.get("etag") ?? "";
  const cached = await loadRow(
    phase,
    features,
    { authorization: TOKENS.client, "if-none-match": etag },
    "client features 304",
  );
  const context = "userId=user-42&sessionId=s-42&properties%5Bcountry%5D=NO&properties%5Bplan%5D=pro";
  const frontend = await loadRow(
    phase,
    `/api/frontend?${context}`,
    { authorization: TOKENS.frontend },
    "frontend",
  );
  return {
    clientFullRps: full.requestsPerSecond,
    clientFullP99: full.p99,
    clientFullCpuMs: full.cpuMs,
    clientGzipRps: gzip.requestsPerSecond,
    clientGzipP99: gzip.p99,
    clientGzipCpuMs: gzip.cpuMs,
    client304Rps: cached.requestsPerSecond,
    client304CpuMs: cached.cpuMs,
    frontendRps: frontend.requestsPerSecond,
    frontendP99: frontend.p99,
    frontendCpuMs: frontend.cpuMs,
  };
}

const INSTANCES = 1000;
/** Flags per metrics body: a body of every flag would pass both services' 100 kB limit from about 1 500 flags. */
const PER_BODY = 1000;

function sdkHeaders(instance: number) {
  return {
    authorization: TOKENS.client,
    "content-type": "application/json",
    "unleash-appname": `scale-app-${instance % 10}`,
    "unleash-instanceid": `scale-instance-${instance}`,
    "unleash-connection-id": `00000000-0000-4000-8000-${String(instance).padStart(12, "0")}`,
    "unleash-interval": "60000",
    "unleash-sdk": "unleash-client-node:6.12.1",
  };
}

/**
 * 1 000 SDK instances register, then report every flag, as the Node SDK's metrics body has
 * it, in bodies of at most 1 000 flags. Ingesting is measured for the load's length, and the
 * server's CPU until it is idle again, so that work it defers (aggregation, writes) counts.
 */
export async function metrics(phase: Phase): Promise<Figures> {
  const { url, pid } = phase.service;
  const registerStarted = performance.now();
  await inParallel(
    Array.from({ length: INSTANCES }, (_, i) => i),
    phase.connections,
    async (instance) => {
      const headers = sdkHeaders(instance);
      await must(
        url,
        TOKENS.client,
        "POST",
        "/api/client/register",
        {
          appName: headers["unleash-appname"],
          instanceId: headers["unleash-instanceid"],
          connectionId: headers["unleash-connection-id"],
          sdkVersion: headers["unleash-sdk"],
          strategies: ["default", "flexibleRollout", "userWithId", "remoteAddress", "applicationHostname"],
          started: new Date().toISOString(),
          interval: 60_000,
          platformName: "Node",
          platformVersion: process.versions.node,
          yggdrasilVersion: null,
          specVersion: "5.2.2",
        },
        headers,
      );
    },
  );
  const registerSeconds = (performance.now() - registerStarted) / 1000;

  const chunks: string[] = [];
  for (let start = 0; start < phase.flags.length; start += PER_BODY) {
    const toggles = Object.fromEntries(
      phase.flags.slice(start, start + PER_BODY).map((flag) => {
        const yes = (flag.index * 7919) % 500;
        const variants =
          flag.environments.development.strategies.at(-1)!.variants.length > 0
            ? { control: Math.floor(yes / 2), treatment: yes - Math.floor(yes / 2) }
            : {};
        return [flag.name, { yes, no: (flag.index * 104_729) % 300, variants }];
      }),
    );
    chunks.push(JSON.stringify(toggles));
  }
  const stop = new Date();
  const start = new Date(stop.getTime() - 60_000);
  const body = (index: number) => {
    const instance = index % INSTANCES;
    const headers = sdkHeaders(instance);
    const toggles = chunks[Math.floor(index / INSTANCES) % chunks.length]!;
    return {
      method: "POST" as const,
      path: "/api/client/metrics",
      headers,
      body: `{"appName":"${headers["unleash-appname"]}","instanceId":"${headers["unleash-instanceid"]}","connectionId":"${headers["unleash-connection-id"]}","bucket":{"start":"${start.toISOString()}","stop":"${stop.toISOString()}","toggles":${toggles}},"platformName":"Node","platformVersion":"${process.versions.node}","yggdrasilVersion":null,"specVersion":"5.2.2"}`,
    };
  };
  const cpuBefore = cpuSeconds(pid);
  const result = await load(url, body, phase.connections, phase.seconds);
  if (result.failures > 0)
    phase.note(`metrics: ${result.failures} failures ${JSON.stringify(result.failureKinds)}`);
  // Until the server is idle again (under 5 % of a core for a second), at most a minute.
  const settleStarted = Date.now();
  for (let last = cpuSeconds(pid); Date.now() - settleStarted < 60_000; ) {
    await sleep(1000);
    const now = cpuSeconds(pid);
    if (now - last < 0.05) break;
    last = now;
  }
  const cpu = cpuSeconds(pid) - cpuBefore;
  const entries =
    Math.max(0, result.requestsPerSecond * phase.seconds - result.failures) *
    (phase.flags.length / chunks.length);
  const perSecond = entries / phase.seconds;
  return {
    registerSeconds,
    metricsTogglesPerSecond: perSecond,
    metricsRoundSeconds: (INSTANCES * phase.flags.length) / perSecond,
    metricsCpuPerMillion: entries > 0 ? (cpu / entries) * 1e6 : undefined,
  };
}

/** Admin writes from 10 clients: each operation creates a flag, adds a strategy and enables it. */
export async function writes(phase: Phase, operations: number): Promise<Figures> {
  const { url } = phase.service;
  const times: number[] = [];
  const cpuBefore = cpuSeconds(phase.service.pid);
  const started = performance.now();
  await inParallel(
    Array.from({ length: operations }, (_, i) => i),
    10,
    async (i) => {
      const project = PROJECTS[i % PROJECTS.length]!;
      const name = `written-${String(i).padStart(5, "0")}`;
      const began = performance.now();
      await must(url, TOKENS.admin, "POST", `/api/admin/projects/${project}/features`, {
        name,
        type: "release",
      });
      const env = `/api/admin/projects/${project}/features/${name}/environments/development`;
      await must(url, TOKENS.admin, "POST", `${env}/strategies`, {
        name: "flexibleRollout",
        parameters: { rollout: "50", stickiness: "default", groupId: name },
        constraints: [{ contextName: "country", operator: "IN", values: ["NO", "SE"] }],
      });
      await must(url, TOKENS.admin, "POST", `${env}/on`);
      times.push(performance.now() - began);
    },
  );
  return {
    writeOpsPerSecond: operations / ((performance.now() - started) / 1000),
    writeP50: percentile(times, 50),
    writeP99: percentile(times, 99),
    writeCpuMs: ((cpuSeconds(phase.service.pid) - cpuBefore) * 1000) / operations,
  };
}

/** Every project exported from development, one after the other, with the personal token. */
export async function exports(phase: Phase): Promise<Figures> {
  const started = performance.now();
  let exported = 0;
  for (const project of PROJECTS) {
    const file = await must<{ features: unknown[] }>(
      phase.service.url,
      phase.personalToken,
      "POST",
      "/api/admin/features-batch/export",
      { environment: "development", project },
    );
    exported += file.features.length;
  }
  phase.note(`export holds ${exported} flags`);
  return { exportSeconds: (performance.now() - started) / 1000 };
}
