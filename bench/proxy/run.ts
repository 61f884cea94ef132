// Proxy benchmark: the Signalbox proxy and the reference @unleash/proxy, each started as its
// own command, fed the same upstream document and the same contexts. Both run at once and are
// loaded in turns, in alternating order, so that a machine shared with other work weighs on
// both alike. The Signalbox proxy is loaded twice: on `/proxy` with a client key, as
// @unleash/proxy is, and on `/api/frontend` with the flag service's frontend token, in
// Unleash Edge's place, and on OpenFeature's bulk evaluation (`/ofrep/v1/evaluate/flags`).
import { buildContexts, buildDocument } from "../engine/config.js";
import { type LoadRequest, load } from "../lib/load.js";
import { cpuSeconds, peakMiB, residentMiB, type ServerProcess } from "../lib/process.js";
import { saveResult } from "../lib/results.js";
import { startReference, startSignalbox } from "./servers.js";
import { SERVICE_TOKENS, startUpstream } from "./upstream.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connectionCounts = [50, 200];
const flagCounts = (process.env.BENCH_PROXY_FLAGS ?? "100,350,1000").split(",").map(Number);
/** Each proxy's measured time per row is taken in turns of at least this many seconds. */
const TURN_SECONDS = 2;
// Resident memory once synchronised, before any request, after start-up's garbage has had time to go.
const IDLE_SETTLE_MS = 3000;
// While trying changes, the reference's figures move little: BENCH_PROXY_ONLY=signalbox skips it.
const PROXIES = [
  { name: "signalbox", start: startSignalbox },
  { name: "@unleash/proxy", start: startReference },
].filter(({ name }) => !process.env.BENCH_PROXY_ONLY || process.env.BENCH_PROXY_ONLY === name);

const contexts = buildContexts(500);

/** The same contexts as GET query strings and POST bodies, on `path` with `authorization`. */
function requestsFor(path: string, authorization: string): Record<"GET" | "POST", LoadRequest[]> {
  const headers = { authorization };
  return {
    GET: contexts.map((context) => {
      const query = new URLSearchParams({
        appName: context.appName,
        environment: context.environment,
        userId: context.userId,
        sessionId: context.sessionId,
        remoteAddress: context.remoteAddress,
      });
      for (const [name, value] of Object.entries(context.properties)) query.set(`properties[${name}]`, value);
      return { method: "GET", path: `${path}?${query}`, headers };
    }),
    POST: contexts.map((context) => ({
      method: "POST",
      path,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ context }),
    })),
  };
}
const PROXY_REQUESTS = requestsFor("/proxy", "bench-key");
const FRONTEND_API_REQUESTS = requestsFor("/api/frontend", SERVICE_TOKENS.frontend);
// OpenFeature's bulk evaluation: the same contexts, flat, with the user as targeting key.
const OFREP_REQUESTS: Partial<Record<"GET" | "POST", LoadRequest[]>> = {
  POST: contexts.map(({ properties, ...context }) => ({
    method: "POST",
    path: "/ofrep/v1/evaluate/flags",
    headers: { authorization: "bench-key", "content-type": "application/json" },
    body: JSON.stringify({ context: { ...properties, ...context, targetingKey: context.userId } }),
  })),
};

interface Proxy {
  name: string;
  server: ServerProcess;
  requests: Partial<Record<"GET" | "POST", LoadRequest[]>>;
}

// Types, not interfaces, so that they are Records for saveResult.
type Row = {
  proxy: string;
  flags: number;
  method: string;
  connections: number;
  rps: number;
  /** The median of the turns' medians and 99th percentiles. */
  p50: number;
  p99: number;
  rssMiB: number;
  cores: number;
  /** Proxy CPU (user and system) per request answered: less moved by a busy machine than req/s. */
  cpuMicros: number;
  failures: number;
  failureKinds: Record<string, number>;
};

type MemoryRow = {
  proxy: string;
  flags: number;
  /** VmRSS once synchronised, before the first request. */
  idleMiB: number;
  /** VmHWM after every load: the most the process was resident at any moment. */
  peakMiB: number;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** One row per proxy for a method and a connection count: the proxies loaded in turns, in alternating order. */
async function measure(all: Proxy[], flags: number, method: "GET" | "POST", connections: number) {
  // Rows that answer this method only (OpenFeature's bulk evaluation is a POST).
  const proxies = all.filter((proxy) => proxy.requests[method] !== undefined);
  const turns = Math.max(1, Math.floor(seconds / TURN_SECONDS));
  const totals = proxies.map(() => ({
    cpu: 0,
    requests: 0,
    elapsed: 0,
    p50: [] as number[],
    p99: [] as number[],
    failureKinds: {} as Record<string, number>,
  }));
  for (const { server, requests } of proxies) await load(server.url, requests[method]!, connections, 2); // warm-up
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? proxies : [...proxies].reverse();
    for (const proxy of order) {
      const total = totals[proxies.indexOf(proxy)]!;
      const pid = proxy.server.child.pid!;
      const cpuBefore = cpuSeconds(pid);
      const started = Date.now();
      const result = await load(proxy.server.url, proxy.requests[method]!, connections, seconds / turns);
      total.cpu += cpuSeconds(pid) - cpuBefore;
      total.elapsed += (Date.now() - started) / 1000;
      total.requests += result.requestsPerSecond * (seconds / turns);
      total.p50.push(result.p50);
      total.p99.push(result.p99);
      for (const [kind, count] of Object.entries(result.failureKinds)) {
        total.failureKinds[kind] = (total.failureKinds[kind] ?? 0) + count;
      }
    }
  }
  return proxies.map(({ name, server }, index): Row => {
    const total = totals[index]!;
    const failures = Object.values(total.failureKinds).reduce((sum, count) => sum + count, 0);
    const row: Row = {
      proxy: name,
      flags,
      method,
      connections,
      rps: total.requests / seconds,
      p50: median(total.p50),
      p99: median(total.p99),
      rssMiB: residentMiB(server.child.pid!),
      cores: total.cpu / total.elapsed,
      cpuMicros: (total.cpu * 1e6) / total.requests,
      failures,
      failureKinds: total.failureKinds,
    };
    console.log(
      `${name.padEnd(16)} ${String(flags).padStart(5)} flags ${method.padEnd(4)} c=${String(connections).padEnd(3)} ` +
        `${Math.round(row.rps).toLocaleString("en-US").padStart(8)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  ` +
        `rss ${row.rssMiB.toFixed(0)} MiB  cores ${row.cores.toFixed(2)}  cpu ${row.cpuMicros.toFixed(0)} µs/req  ` +
        `failures ${failures}` +
        (failures > 0 ? ` (${JSON.stringify(total.failureKinds)})` : ""),
    );
    return row;
  });
}

const rows: Row[] = [];
const memory: MemoryRow[] = [];
for (const flags of flagCounts) {
  const upstream = await startUpstream(buildDocument(flags));
  const proxies: Proxy[] = [];
  try {
    for (const { name, start } of PROXIES) {
      const server = await start(upstream.url);
      proxies.push({ name, server, requests: PROXY_REQUESTS });
      if (name === "signalbox") {
        proxies.push({ name: "signalbox /api/frontend", server, requests: FRONTEND_API_REQUESTS });
        proxies.push({ name: "signalbox /ofrep bulk", server, requests: OFREP_REQUESTS });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    // One process may serve two rows: its memory is reported once.
    const processes = proxies.filter(
      (proxy, index) => proxies.findIndex((other) => other.server === proxy.server) === index,
    );
    const idle = processes.map(({ server }) => residentMiB(server.child.pid!));
    for (const method of ["GET", "POST"] as const) {
      for (const connections of connectionCounts)
        rows.push(...(await measure(proxies, flags, method, connections)));
    }
    processes.forEach(({ name, server }, index) => {
      const row = { proxy: name, flags, idleMiB: idle[index]!, peakMiB: peakMiB(server.child.pid!) };
      memory.push(row);
      console.log(
        `${name.padEnd(16)} ${String(flags).padStart(5)} flags memory: idle ${row.idleMiB.toFixed(0)} MiB, peak ${row.peakMiB.toFixed(0)} MiB`,
      );
    });
  } finally {
    for (const { server } of proxies) await server.stop();
    upstream.server.close();
  }
}

const ratios: Record<string, number> = {};
const isOurs = (row: { proxy: string }) => row.proxy.startsWith("signalbox");
if (PROXIES.length > 1) {
  console.log("\nratios (signalbox / @unleash/proxy; CPU and memory: @unleash/proxy / signalbox):");
  for (const ours of rows.filter(isOurs)) {
    const theirs = rows.find(
      (row) =>
        !isOurs(row) &&
        row.flags === ours.flags &&
        row.method === ours.method &&
        row.connections === ours.connections,
    );
    if (!theirs) continue;
    const key = `${ours.proxy === "signalbox" ? "" : `${ours.proxy.replace("signalbox ", "")} `}${ours.flags} flags ${ours.method} c=${ours.connections}`;
    ratios[key] = ours.rps / theirs.rps;
    ratios[`${key} CPU/request`] = theirs.cpuMicros / ours.cpuMicros;
    console.log(
      `${key.padEnd(36)} req/s ${ratios[key]!.toFixed(1)}x  CPU per request ${ratios[`${key} CPU/request`]!.toFixed(1)}x less  ` +
        `p99 ${ours.p99} vs ${theirs.p99} ms`,
    );
  }
  for (const ours of memory.filter(isOurs)) {
    const theirs = memory.find((row) => !isOurs(row) && row.flags === ours.flags);
    if (!theirs) continue;
    ratios[`${ours.flags} flags peak memory`] = theirs.peakMiB / ours.peakMiB;
    console.log(
      `${`${ours.flags} flags memory`.padEnd(22)} idle ${ours.idleMiB.toFixed(0)} vs ${theirs.idleMiB.toFixed(0)} MiB, ` +
        `peak ${ours.peakMiB.toFixed(0)} vs ${theirs.peakMiB.toFixed(0)} MiB`,
    );
  }
}
saveResult({ bench: "proxy", figures: [...rows, ...memory], ratios });
