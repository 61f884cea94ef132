// Client API benchmark: GET /api/client/features with 1 000 flags, with and without
// If-None-Match, against Signalbox and the reference unleash-server, each on its own
// fresh database of the same PostgreSQL server, flags created through the admin API.
import { createServer } from "node:net";
import type { ClientFeatures, ConstraintDefinition, StrategyDefinition } from "@signalbox/engine";
import pg from "pg";
import { buildDocument } from "../engine/config.js";
import { load } from "../lib/load.js";
import { cpuSeconds, residentMiB, startServer, waitFor } from "../lib/process.js";
import { populate } from "./populate.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const adminToken = "*:*.bench-admin-token";
const clientToken = "default:development.bench-client-token";

async function freshDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

// unleash-server 8.2 knows neither the IN_CIDR operator nor the userWithId and legacy
// gradual-rollout strategies (a fresh install has none of them): both services get the
// document rewritten into what 8.2 accepts.
function forReference(document: ClientFeatures): ClientFeatures {
  const classic = (constraints: ConstraintDefinition[] = []) =>
    constraints.filter((constraint) => constraint.operator !== "IN_CIDR");
  const modern = (strategy: StrategyDefinition): StrategyDefinition => {
    const parameters = strategy.parameters ?? {};
    const constraints = classic(strategy.constraints);
    const list = (text: unknown) => String(text ?? "").split(/\s*,\s*/);
    switch (strategy.name) {
      case "userWithId":
        return {
          name: "default",
          constraints: [
            ...constraints,
            { contextName: "userId", operator: "IN", values: list(parameters.userIds) },
          ],
        };
      case "gradualRolloutUserId":
        return {
          name: "flexibleRollout",
          parameters: {
            rollout: String(parameters.percentage),
            stickiness: "userId",
            groupId: String(parameters.groupId),
          },
          constraints,
        };
      default:
        return { ...strategy, constraints };
    }
  };
  return {
    ...document,
    segments: document.segments?.map((segment) => ({
      ...segment,
      constraints: classic(segment.constraints),
    })),
    features: document.features.map((feature) => ({
      ...feature,
      strategies: feature.strategies?.map(modern),
    })),
  };
}

interface Row {
  service: string;
  variant: string;
  rps: number;
  p50: number;
  p99: number;
  rssMiB: number;
  cores: number;
  failures: number;
  failureKinds: Record<string, number>;
}

async function measure(service: string, script: string, rows: Row[]) {
  const port = await freePort();
  const database = await freshDatabase(`bench_${service.replace(/\W/g, "_")}`);
  const server = await startServer(new URL(script, import.meta.url).pathname, {
    PORT: String(port),
    DATABASE_URL: database,
    DATABASE_SSL: "false",
    INIT_ADMIN_API_TOKENS: adminToken,
    INIT_CLIENT_API_TOKENS: clientToken,
    LOG_LEVEL: "error",
  });
  try {
    await waitFor(async () => (await fetch(`${server.url}/health`)).ok, `${service} to start`, 120_000);
    const started = Date.now();
    await populate(server.url, adminToken, forReference(buildDocument(1000)));
    console.log(
      `${service}: 1 000 flags created through the admin API in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    const features = `/api/client/features`;
    const first = await fetch(`${server.url}${features}`, { headers: { authorization: clientToken } });
    const body = (await first.json()) as { features: unknown[] };
    const etag = first.headers.get("etag");
    console.log(`${service}: serves ${body.features.length} flags, etag ${etag}`);
    const pid = server.child.pid!;
    // SDKs' HTTP clients ask for gzip; the plain row shows the uncompressed path too.
    const gzipped = await fetch(`${server.url}${features}`, {
      headers: { authorization: clientToken, "accept-encoding": "gzip" },
    });
    console.log(
      `${service}: answers accept-encoding gzip with ${gzipped.headers.get("content-encoding") ?? "no encoding"}`,
    );
    for (const [variant, headers] of [
      ["full body", { authorization: clientToken }],
      ["full body gzip", { authorization: clientToken, "accept-encoding": "gzip" }],
      ["If-None-Match", { authorization: clientToken, "if-none-match": etag ?? "" }],
    ] as const) {
      await load(server.url, [{ method: "GET", path: features, headers }], connections, 2); // warm-up
      const cpuBefore = cpuSeconds(pid);
      const loadStarted = Date.now();
      const result = await load(
        server.url,
        [{ method: "GET", path: features, headers }],
        connections,
        seconds,
      );
      rows.push({
        service,
        variant,
        rps: result.requestsPerSecond,
        p50: result.p50,
        p99: result.p99,
        rssMiB: residentMiB(pid),
        cores: (cpuSeconds(pid) - cpuBefore) / ((Date.now() - loadStarted) / 1000),
        failures: result.failures,
        failureKinds: result.failureKinds,
      });
      const row = rows.at(-1)!;
      console.log(
        `${service.padEnd(20)} ${variant.padEnd(15)} c=${connections} ${Math.round(row.rps).toLocaleString("en-US").padStart(8)} req/s  ` +
          `p50 ${row.p50} ms  p99 ${row.p99} ms  rss ${row.rssMiB.toFixed(0)} MiB  cores ${row.cores.toFixed(2)}  failures ${row.failures}` +
          (row.failures > 0 ? ` (${JSON.stringify(row.failureKinds)})` : ""),
      );
    }
  } finally {
    await server.stop();
  }
}

const rows: Row[] = [];
if (!process.env.ONLY_REFERENCE) await measure("signalbox", "./signalbox.ts", rows);
await measure("unleash-server 8.2.0", "./reference.ts", rows);
console.log("\nratios (signalbox / unleash-server):");
for (const ours of rows.filter((row) => row.service === "signalbox")) {
  const theirs = rows.find((row) => row.service !== "signalbox" && row.variant === ours.variant);
  if (theirs) {
    console.log(
      `${ours.variant.padEnd(15)} req/s ${(ours.rps / theirs.rps).toFixed(1)}x  p99 ${ours.p99} vs ${theirs.p99} ms`,
    );
  }
}
