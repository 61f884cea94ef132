// Client API benchmark: GET /api/client/features with 1 000 flags, with and without
// If-None-Match, and the frontend API (GET and POST /api/frontend for one context), against
// Signalbox and the reference unleash-server, each on its own fresh database of the same
// PostgreSQL server, flags and the frontend token created through the admin API. Both
// services run at once and are loaded in turns, so that a machine shared with other work
// weighs on both alike.

import { buildDocument } from "../engine/config.js";
import { freshDatabase } from "../lib/database.js";
import { type LoadRequest, load } from "../lib/load.js";
import {
  cpuSeconds,
  freePort,
  residentMiB,
  type ServerProcess,
  startServer,
  waitFor,
} from "../lib/process.js";
import { saveResult } from "../lib/results.js";
import { enabledFor, frontendRequests, frontendToken } from "./frontend.js";
import { populate } from "./populate.js";
import { forReference } from "./reference-form.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
/** Each service's measured time per row is taken in turns of at least this many seconds. */
const TURN_SECONDS = 2;
const adminToken = "*:*.bench-admin-token";
const clientToken = "default:development.bench-client-token";
const VARIANTS = ["full body", "full body gzip", "If-None-Match", "frontend GET", "frontend POST"] as const;
type Variant = (typeof VARIANTS)[number];

interface Service {
  name: string;
  server: ServerProcess;
  requests: Record<Variant, LoadRequest>;
}

/** Starts a service on a fresh database, creates the flags and a frontend token, and says what it serves. */
async function prepare(name: string, script: string): Promise<Service> {
  const server = await startServer(new URL(script, import.meta.url).pathname, {
    PORT: String(await freePort()),
    DATABASE_URL: await freshDatabase(`bench_${name.replace(/\W/g, "_")}`),
    DATABASE_SSL: "false",
    INIT_ADMIN_API_TOKENS: adminToken,
    INIT_CLIENT_API_TOKENS: clientToken,
    LOG_LEVEL: "error",
  });
  await waitFor(async () => (await fetch(`${server.url}/health`)).ok, `${name} to start`, 120_000);
  const started = Date.now();
  await populate(server.url, adminToken, forReference(buildDocument(1000)));
  console.log(
    `${name}: 1 000 flags created through the admin API in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const features = "/api/client/features";
  const first = await fetch(`${server.url}${features}`, { headers: { authorization: clientToken } });
  const body = (await first.json()) as { features: unknown[] };
  const etag = first.headers.get("etag");
  console.log(`${name}: serves ${body.features.length} flags, etag ${etag}`);
  // SDKs' HTTP clients ask for gzip; the plain row shows the uncompressed path too.
  const gzipped = await fetch(`${server.url}${features}`, {
    headers: { authorization: clientToken, "accept-encoding": "gzip" },
  });
  console.log(
    `${name}: answers accept-encoding gzip with ${gzipped.headers.get("content-encoding") ?? "no encoding"}`,
  );
  const frontend = frontendRequests(await frontendToken(server.url, adminToken));
  console.log(
    `${name}: the frontend API enables ${await enabledFor(server.url, frontend.get)} flags (GET), ` +
      `${await enabledFor(server.url, frontend.post)} (POST) for the context`,
  );
  const sdk = (headers: Record<string, string>): LoadRequest => ({ method: "GET", path: features, headers });
  return {
    name,
    server,
    requests: {
      "full body": sdk({ authorization: clientToken }),
      "full body gzip": sdk({ authorization: clientToken, "accept-encoding": "gzip" }),
      "If-None-Match": sdk({ authorization: clientToken, "if-none-match": etag ?? "" }),
      "frontend GET": frontend.get,
      "frontend POST": frontend.post,
    },
  };
}

// A type, not an interface, so that it is a Record for saveResult.
type Row = {
  service: string;
  variant: string;
  rps: number;
  /** The median of the turns' medians and 99th percentiles. */
  p50: number;
  p99: number;
  rssMiB: number;
  cores: number;
  /** Server CPU (user and system) per request answered: less moved by a busy machine than req/s. */
  cpuMicros: number;
  failures: number;
  failureKinds: Record<string, number>;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** One row per service for a variant: the services loaded in turns, in alternating order. */
async function measure(services: Service[], variant: Variant): Promise<Row[]> {
  const turns = Math.max(1, Math.floor(seconds / TURN_SECONDS));
  const totals = services.map(() => ({
    cpu: 0,
    requests: 0,
    elapsed: 0,
    p50: [] as number[],
    p99: [] as number[],
    failureKinds: {} as Record<string, number>,
  }));
  for (const service of services) await load(service.server.url, [service.requests[variant]], connections, 2);
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? services : [...services].reverse();
    for (const service of order) {
      const total = totals[services.indexOf(service)]!;
      const pid = service.server.child.pid!;
      const cpuBefore = cpuSeconds(pid);
      const started = Date.now();
      const result = await load(
        service.server.url,
        [service.requests[variant]],
        connections,
        seconds / turns,
      );
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
  return services.map((service, index) => {
    const total = totals[index]!;
    const failures = Object.values(total.failureKinds).reduce((sum, count) => sum + count, 0);
    const row: Row = {
      service: service.name,
      variant,
      rps: total.requests / seconds,
      p50: median(total.p50),
      p99: median(total.p99),
      rssMiB: residentMiB(service.server.child.pid!),
      cores: total.cpu / total.elapsed,
      cpuMicros: (total.cpu * 1e6) / total.requests,
      failures,
      failureKinds: total.failureKinds,
    };
    console.log(
      `${row.service.padEnd(20)} ${variant.padEnd(15)} c=${connections} ${Math.round(row.rps).toLocaleString("en-US").padStart(8)} req/s  ` +
        `p50 ${row.p50} ms  p99 ${row.p99} ms  rss ${row.rssMiB.toFixed(0)} MiB  cores ${row.cores.toFixed(2)}  ` +
        `cpu ${row.cpuMicros.toFixed(0)} µs/req  failures ${failures}` +
        (failures > 0 ? ` (${JSON.stringify(total.failureKinds)})` : ""),
    );
    return row;
  });
}

const services: Service[] = [];
const rows: Row[] = [];
try {
  if (!process.env.ONLY_REFERENCE) services.push(await prepare("signalbox", "./signalbox.ts"));
  services.push(await prepare("unleash-server 8.2.0", "./reference.ts"));
  for (const variant of VARIANTS) rows.push(...(await measure(services, variant)));
} finally {
  for (const service of services) await service.server.stop();
}

console.log("\nratios (signalbox / unleash-server):");
const ratios: Record<string, number> = {};
for (const ours of rows.filter((row) => row.service === "signalbox")) {
  const theirs = rows.find((row) => row.service !== "signalbox" && row.variant === ours.variant);
  if (theirs) {
    ratios[ours.variant] = ours.rps / theirs.rps;
    ratios[`${ours.variant} CPU/request`] = theirs.cpuMicros / ours.cpuMicros;
    console.log(
      `${ours.variant.padEnd(15)} req/s ${ratios[ours.variant]!.toFixed(1)}x  ` +
        `CPU per request ${ratios[`${ours.variant} CPU/request`]!.toFixed(1)}x less  p99 ${ours.p99} vs ${theirs.p99} ms`,
    );
  }
}
saveResult({ bench: "client-api", figures: rows, ratios });
