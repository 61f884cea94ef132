// Proxy benchmark: the Signalbox proxy and the reference @unleash/proxy, fed the same
// upstream document and the same contexts, loaded in turn by one autocannon client.
import { buildContexts, buildDocument } from "../engine/config.js";
import { type LoadRequest, load } from "../lib/load.js";
import { cpuSeconds, residentMiB, type ServerProcess, startServer, waitFor } from "../lib/process.js";
import { startUpstream } from "./upstream.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connectionCounts = [50, 200];
const flagCounts = [100, 1000];

const contexts = buildContexts(500);
const headers = { authorization: "bench-key" };
const getRequests: LoadRequest[] = contexts.map((context) => {
  const query = new URLSearchParams({
    appName: context.appName,
    environment: context.environment,
    userId: context.userId,
    sessionId: context.sessionId,
    remoteAddress: context.remoteAddress,
  });
  for (const [name, value] of Object.entries(context.properties)) query.set(`properties[${name}]`, value);
  return { method: "GET", path: `/proxy?${query}`, headers };
});
const postRequests: LoadRequest[] = contexts.map((context) => ({
  method: "POST",
  path: "/proxy",
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify({ context }),
}));

interface Row {
  proxy: string;
  flags: number;
  method: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  rssMiB: number;
  cores: number;
  failures: number;
  failureKinds: Record<string, number>;
}

async function measure(name: string, script: string, upstreamUrl: string, flags: number, rows: Row[]) {
  const server: ServerProcess = await startServer(script, { UPSTREAM_URL: upstreamUrl });
  try {
    await waitFor(async () => (await fetch(`${server.url}/proxy/health`)).ok, `${name} to sync`);
    const pid = server.child.pid!;
    for (const [method, requests] of [
      ["GET", getRequests],
      ["POST", postRequests],
    ] as const) {
      await load(server.url, requests, 50, 2); // warm-up
      for (const connections of connectionCounts) {
        const cpuBefore = cpuSeconds(pid);
        const started = Date.now();
        const result = await load(server.url, requests, connections, seconds);
        const cores = (cpuSeconds(pid) - cpuBefore) / ((Date.now() - started) / 1000);
        rows.push({
          proxy: name,
          flags,
          method,
          connections,
          rps: result.requestsPerSecond,
          p50: result.p50,
          p99: result.p99,
          rssMiB: residentMiB(pid),
          cores,
          failures: result.failures,
          failureKinds: result.failureKinds,
        });
        const row = rows.at(-1)!;
        console.log(
          `${name.padEnd(16)} ${String(flags).padStart(5)} flags ${method.padEnd(4)} c=${String(connections).padEnd(3)} ` +
            `${Math.round(row.rps).toLocaleString("en-US").padStart(8)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  ` +
            `rss ${row.rssMiB.toFixed(0)} MiB  cores ${row.cores.toFixed(2)}  failures ${row.failures}` +
            (row.failures > 0 ? ` (${JSON.stringify(row.failureKinds)})` : ""),
        );
      }
    }
  } finally {
    await server.stop();
  }
}

const rows: Row[] = [];
for (const flags of flagCounts) {
  const upstream = await startUpstream(buildDocument(flags));
  await measure("signalbox", new URL("./signalbox.ts", import.meta.url).pathname, upstream.url, flags, rows);
  await measure(
    "@unleash/proxy",
    new URL("./reference.ts", import.meta.url).pathname,
    upstream.url,
    flags,
    rows,
  );
  upstream.server.close();
}

console.log("\nratios (signalbox / @unleash/proxy):");
for (const ours of rows.filter((row) => row.proxy === "signalbox")) {
  const theirs = rows.find(
    (row) =>
      row.proxy !== "signalbox" &&
      row.flags === ours.flags &&
      row.method === ours.method &&
      row.connections === ours.connections,
  );
  if (!theirs) continue;
  console.log(
    `${String(ours.flags).padStart(5)} flags ${ours.method.padEnd(4)} c=${String(ours.connections).padEnd(3)} ` +
      `req/s ${(ours.rps / theirs.rps).toFixed(1)}x  p99 ${ours.p99} vs ${theirs.p99} ms  ` +
      `memory ${ours.rssMiB.toFixed(0)} vs ${theirs.rssMiB.toFixed(0)} MiB`,
  );
}
