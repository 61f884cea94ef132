// Peak and resident memory of the built service on its embedded database: a first start on
// an empty data folder, a warm start on the same folder, and that warm process after a short
// load. Builds nothing: run `node scripts/build.mjs` first. Usage:
//   node bench/embedded-memory.mjs [runs]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const cli = resolve(dirname(fileURLToPath(import.meta.url)), "..", "packages", "server", "dist", "cli.js");
const ADMIN = "*:*.embedded-memory-admin";
const CLIENT = "default:development.embedded-memory-client";
const FLAGS = 200;
const READS = 1000;

const freePort = () =>
  new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

/** VmHWM (the peak) and VmRSS (now) in MiB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]) / 1024;
  return { peak: mib("VmHWM"), resident: mib("VmRSS") };
}

async function start(dataDir) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [cli], {
    env: {
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      INIT_ADMIN_API_TOKENS: ADMIN,
      INIT_CLIENT_API_TOKENS: CLIENT,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((done) => child.once("exit", done));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const outcome = await Promise.race([
      exited.then((code) => ({ code })),
      fetch(`${url}/health`).then(
        (response) => ({ ok: response.ok }),
        () => ({ ok: false }),
      ),
    ]);
    if ("code" in outcome) throw new Error(`the service exited with ${outcome.code}: ${stderr}`);
    if (outcome.ok) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  const seconds = (performance.now() - began) / 1000;
  return {
    url,
    seconds,
    memory: () => memory(child.pid),
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

async function request(url, init, token) {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: token, "content-type": "application/json" },
  });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

async function load(url) {
  for (let index = 0; index < FLAGS; index++) {
    const body = JSON.stringify({ name: `memory-flag-${index}` });
    await request(`${url}/api/admin/projects/default/features`, { method: "POST", body }, ADMIN);
  }
  for (let index = 0; index < READS; index++) {
    await request(`${url}/api/client/features`, {}, CLIENT);
  }
}

async function run() {
  const dataDir = mkdtempSync(join(tmpdir(), "signalbox-memory-"));
  try {
    const rows = [];
    const first = await start(dataDir);
    rows.push({ phase: "first start", seconds: first.seconds, ...first.memory() });
    await first.stop();
    const warm = await start(dataDir);
    rows.push({ phase: "warm start", seconds: warm.seconds, ...warm.memory() });
    const began = performance.now();
    await load(warm.url);
    const seconds = (performance.now() - began) / 1000;
    rows.push({ phase: `after ${FLAGS} flags, ${READS} reads`, seconds, ...warm.memory() });
    await warm.stop();
    return rows;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const runs = Number(process.argv[2] ?? 1);
console.log("| run | phase | seconds (to /health, or of the load) | VmHWM (MiB) | VmRSS (MiB) |");
console.log("|---|---|---|---|---|");
for (let index = 1; index <= runs; index++) {
  for (const row of await run()) {
    console.log(
      `| ${index} | ${row.phase} | ${row.seconds.toFixed(1)} | ${row.peak.toFixed(0)} | ${row.resident.toFixed(0)} |`,
    );
  }
}
