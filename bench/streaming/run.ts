// Streaming benchmark. (1) Change → SDK: a flag switched through the admin API of one
// Signalbox instance, and the time until the Node SDK in streaming mode, connected to a
// second instance on the same PostgreSQL database, reports it; beside it the reference
// (unleash-server 8.2, whose open-source edition has no streaming) with the same SDK polling
// at 1 s, the shortest interval anyone runs; and the same SDK streaming from the Signalbox
// proxy (in Unleash Edge's place, with the service's own token) that follows instance B by
// streaming. (2) Fan-out: N raw streams on one instance, the
// time for one change to reach all of them, and the instance's resident memory per stream.
//
//   BENCH_CHANGES (200)  changes timed per side
//   BENCH_FLAGS (350)    flags in the configuration
//   BENCH_FANOUT (100,1000,5000)  stream counts
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Unleash } from "unleash-client";
import { populate } from "../client-api/populate.js";
import { forReference } from "../client-api/reference-form.js";
import { buildDocument } from "../engine/config.js";
import { freshDatabase } from "../lib/database.js";
import { freePort, residentMiB, type ServerProcess, startServer, waitFor } from "../lib/process.js";
import { saveResult } from "../lib/results.js";
import { startSignalbox } from "../proxy/servers.js";

const changes = Number(process.env.BENCH_CHANGES ?? 200);
const flagCount = Number(process.env.BENCH_FLAGS ?? 350);
const fanouts = (process.env.BENCH_FANOUT ?? "100,1000,5000").split(",").map(Number);
const adminToken = "*:*.bench-admin-token";
const clientToken = "*:development.bench-client-token";
const FLAG = "bench-stream-flag";

async function start(name: string, script: string, database: string): Promise<ServerProcess> {
  const server = await startServer(new URL(script, import.meta.url).pathname, {
    PORT: String(await freePort()),
    DATABASE_URL: database,
    DATABASE_SSL: "false",
    INIT_ADMIN_API_TOKENS: adminToken,
    INIT_CLIENT_API_TOKENS: clientToken,
    LOG_LEVEL: "error",
    // The benchmark's own limit, above the largest fan-out.
    STREAMING_MAX_CONNECTIONS: "20000",
  });
  await waitFor(async () => (await fetch(`${server.url}/health`)).ok, `${name} to start`, 120_000);
  return server;
}

async function admin(url: string, method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: adminToken, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

const flip = (url: string, on: boolean) =>
  admin(
    url,
    "POST",
    `/api/admin/projects/default/features/${FLAG}/environments/development/${on ? "on" : "off"}`,
  );

/** The flag as Signalbox holds it, so that each fan-out change is a change. */
let signalboxOn = false;

async function prepare(url: string): Promise<void> {
  await populate(url, adminToken, forReference(buildDocument(flagCount)));
  await admin(url, "POST", "/api/admin/projects/default/features", { name: FLAG });
  await admin(
    url,
    "POST",
    `/api/admin/projects/default/features/${FLAG}/environments/development/strategies`,
    {
      name: "default",
    },
  );
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Switches the flag `changes` times through `writer`; each time, how long until the SDK reports it. */
async function changeToSdk(writer: string, sdk: Unleash): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < changes; index++) {
    const on = index % 2 === 0;
    const seen = new Promise<void>((resolve) => {
      const check = () => {
        if (sdk.isEnabled(FLAG) !== on) return;
        sdk.off("changed", check);
        resolve();
      };
      sdk.on("changed", check);
    });
    const started = performance.now();
    await flip(writer, on);
    await seen;
    times.push(performance.now() - started);
    // Changes a little apart, as people make them; none waits on the last one's aftermath.
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  }
  return times;
}

async function sdkOn(url: string, mode: "streaming" | "polling"): Promise<Unleash> {
  const sdk = new Unleash({
    appName: "bench-streaming",
    url: `${url}/api`,
    customHeaders: { Authorization: clientToken },
    experimentalMode: mode === "streaming" ? { type: "streaming" } : { type: "polling", format: "full" },
    refreshInterval: 1000,
    disableMetrics: true,
    skipInstanceCountWarning: true,
  });
  await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
  return sdk;
}

/** A raw stream that counts the `unleash-updated` events it has read, and when it read each. */
interface RawStream {
  response: IncomingMessage;
  updates: number[];
  connected: boolean;
}

function openStream(url: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/api/client/streaming`, {
      headers: { authorization: clientToken },
      agent: false,
    });
    request.once("error", reject);
    request.once("response", (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
      const stream: RawStream = { response, updates: [], connected: false };
      response.setEncoding("utf8");
      let tail = "";
      response.on("data", (chunk: string) => {
        // Only event names matter here; the tail keeps a name split across chunks.
        const text = tail + chunk;
        if (!stream.connected && text.includes("event: unleash-connected")) {
          stream.connected = true;
          resolve(stream);
        }
        const found = text.split("event: unleash-updated").length - 1;
        for (let i = 0; i < found; i++) stream.updates.push(performance.now());
        tail = text.slice(-30).includes("event:") ? text.slice(-30) : "";
        if (tail.includes("event: unleash-updated")) tail = "";
      });
    });
    request.end();
  });
}

const databases = {
  signalbox: await freshDatabase("bench_streaming_signalbox"),
  reference: await freshDatabase("bench_streaming_reference"),
};
const writer = await start("signalbox A", "../client-api/signalbox.ts", databases.signalbox);
const reader = await start("signalbox B", "../client-api/signalbox.ts", databases.signalbox);
const reference = await start("reference", "../client-api/reference.ts", databases.reference);
const sdks: Unleash[] = [];
let relay: ServerProcess | undefined;
try {
  await prepare(writer.url);
  await prepare(reference.url);
  console.log(`${flagCount} flags on each service; ${changes} changes per side`);

  const streaming = await sdkOn(reader.url, "streaming");
  const polling = await sdkOn(reference.url, "polling");
  sdks.push(streaming, polling);
  const signalboxTimes = await changeToSdk(writer.url, streaming);
  relay = await startSignalbox(`${reader.url}/api`, {
    SERVICE_API_TOKEN: clientToken,
    SERVICE_EDGE_TOKENS: clientToken,
  });
  const relayed = await sdkOn(relay.url, "streaming");
  sdks.push(relayed);
  const relayTimes = await changeToSdk(writer.url, relayed);
  signalboxOn = streaming.isEnabled(FLAG);
  const referenceTimes = await changeToSdk(reference.url, polling);
  const row = (name: string, times: number[]) => ({
    side: name,
    p50: Number(percentile(times, 50).toFixed(1)),
    p99: Number(percentile(times, 99).toFixed(1)),
    max: Number(Math.max(...times).toFixed(1)),
  });
  const latency = [
    row("signalbox: streaming SDK on instance B, change on instance A", signalboxTimes),
    row("signalbox: streaming SDK on the proxy following instance B, change on instance A", relayTimes),
    row("reference: polling SDK, refreshInterval 1 s", referenceTimes),
  ];
  console.log("\nchange → SDK (ms)");
  console.table(latency);

  const fanout: {
    streams: number;
    reachedAllMs: number;
    perStreamKiB: number;
    rssMiB: number;
    idleRssMiB: number;
  }[] = [];
  // Measured once: after a round's streams close, the instance keeps memory it may reuse.
  const before = residentMiB(reader.child.pid!);
  for (const count of fanouts) {
    const streams: RawStream[] = [];
    // In batches, as SDKs of a deployment connect: not all in one instant.
    for (let opened = 0; opened < count; opened += 100) {
      const batch = Math.min(100, count - opened);
      streams.push(...(await Promise.all(Array.from({ length: batch }, () => openStream(reader.url)))));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rss = residentMiB(reader.child.pid!);
    const reached: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      const expected = round + 1;
      signalboxOn = !signalboxOn;
      await flip(writer.url, signalboxOn);
      await waitFor(
        async () => streams.every((stream) => stream.updates.length >= expected),
        `${count} streams to hear change ${expected}`,
        60_000,
      );
      reached.push(Math.max(...streams.map((stream) => stream.updates[expected - 1]!)) - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const result = {
      streams: count,
      reachedAllMs: Number(percentile(reached, 50).toFixed(1)),
      perStreamKiB: Number((((rss - before) * 1024) / count).toFixed(1)),
      rssMiB: Number(rss.toFixed(0)),
      idleRssMiB: Number(before.toFixed(0)),
    };
    fanout.push(result);
    console.log(
      `${count} streams: one change reaches all in ${result.reachedAllMs} ms (median of 5), ${result.perStreamKiB} KiB per stream, instance at ${result.rssMiB} MiB (${result.idleRssMiB} MiB before any stream)`,
    );
    for (const stream of streams) stream.response.destroy();
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  console.log("\nfan-out (the reference's open-source edition has no streams to compare with)");
  console.table(fanout);

  saveResult({
    bench: "streaming",
    figures: [...latency, ...fanout],
    ratios: {
      "change → SDK p50 (reference / signalbox)": latency[2]!.p50 / latency[0]!.p50,
      "change → SDK p99 (reference / signalbox)": latency[2]!.p99 / latency[0]!.p99,
      "change → SDK through the proxy p50 (reference / signalbox)": latency[2]!.p50 / latency[1]!.p50,
      "change → SDK through the proxy p99 (reference / signalbox)": latency[2]!.p99 / latency[1]!.p99,
    },
  });
} finally {
  for (const sdk of sdks) sdk.destroy();
  await Promise.all([writer.stop(), reader.stop(), reference.stop(), relay?.stop()]);
}
process.exit(0);
