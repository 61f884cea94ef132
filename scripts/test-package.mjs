// `npm run test:package`: the tarballs `npm run pack` makes, installed as a deployment would
// install them (an empty folder, runtime dependencies only), started from that folder, and
// asked for a flag through the official Node SDK, the proxy and the web UI. Nothing of the
// repository is on the installed programs' path: they run from the folder's node_modules.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pack } from "./pack.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The SDK comes from the repository, as an application's own dependency would.
const { Unleash, InMemStorageProvider } = createRequire(join(root, "packages", "server", "package.json"))(
  "unleash-client",
);

// Development tooling, and the web UI's libraries, which its built files already hold.
const NOT_SHIPPED = [
  "vitest",
  "typescript",
  "playwright",
  "playwright-core",
  "@playwright/test",
  "vite",
  "tsx",
  "react",
  "@mantine/core",
];
const FLAG = "packaged-flag";
const secret = () => randomBytes(16).toString("hex");
const ADMIN = `*:*.${secret()}`;
const CLIENT = `*:development.${secret()}`;
const PROXY_KEY = `proxy-${secret()}`;
// The first start of the embedded database on a loaded machine takes a while; this only stops
// a start that never comes.
const START_LIMIT_MS = 300_000;

const folder = mkdtempSync(join(tmpdir(), "signalbox-package-"));
const children = [];
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function killChildren(signal) {
  for (const { child } of children)
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
process.on("exit", () => killChildren("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    killChildren("SIGKILL");
    rmSync(folder, { recursive: true, force: true });
    process.exit(1);
  });
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// The repository's CI exports DATABASE_URL and npm exports its own settings to scripts: neither
// may reach the installed programs or the npm that installs them.
function cleanEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "DATABASE_URL"),
  );
  delete env.UI_DIR;
  return { ...env, ...extra };
}

function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer().once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

function start(name, env) {
  const output = [];
  // An IPC channel: the installed programs stop when it closes, even if this script is killed outright.
  const child = spawn(join(folder, "node_modules", ".bin", name), [], {
    cwd: folder,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(signal ?? code)));
  const entry = { name, child, output, exited };
  children.push(entry);
  return entry;
}

async function waitForHealth({ name, exited }, url) {
  let gone;
  exited.then((status) => {
    gone = status;
  });
  const since = performance.now();
  while (performance.now() - since < START_LIMIT_MS) {
    if (gone !== undefined) throw new Error(`${name} exited (${gone}) before ${url} answered`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${name}: ${url} did not answer within ${START_LIMIT_MS / 1000} s`);
}

// Every package in the tree, nested ones too, by the folders npm made for them.
function installedPackages(modules) {
  const found = [];
  let entries;
  try {
    entries = readdirSync(modules);
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (entry.startsWith(".")) continue;
    const names = entry.startsWith("@")
      ? readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`)
      : [entry];
    for (const name of names) {
      found.push(name);
      found.push(...installedPackages(join(modules, name, "node_modules")));
    }
  }
  return found;
}

function bytesUnder(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + bytesUnder(join(path, entry)), 0);
}

async function admin(service, method, path, body) {
  const reply = await fetch(`${service}/api/admin${path}`, {
    method,
    headers: { authorization: ADMIN, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  check(reply.ok, `${method} /api/admin${path}: ${reply.status} ${await reply.text()}`);
}

async function sdkSees(service) {
  const sdk = new Unleash({
    appName: "package-test",
    url: `${service}/api`,
    customHeaders: { Authorization: CLIENT },
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
  });
  try {
    await new Promise((done, fail) => {
      sdk.once("synchronized", done);
      sdk.once("error", fail);
    });
    return sdk.isEnabled(FLAG);
  } finally {
    sdk.destroy();
  }
}

async function main() {
  const began = performance.now();
  const tarballs = pack();
  const packed = seconds(began);

  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`);
  const installing = performance.now();
  const { stderr } = await promisify(execFile)(
    "npm",
    ["install", "--omit=dev", "--no-audit", "--no-fund", ...tarballs],
    { cwd: folder, env: cleanEnv({}), maxBuffer: 16 * 1024 * 1024 },
  ).catch((error) => {
    throw new Error(`npm install of the tarballs failed:\n${error.stderr}`);
  });
  const installed = seconds(installing);
  const engineWarnings = [
    ...stderr.matchAll(/EBADENGINE\s+package: '([^']+)',\s*\n.*required: \{ node: '([^']+)'/g),
  ];

  const packages = installedPackages(join(folder, "node_modules"));
  const unwanted = packages.filter((name) => NOT_SHIPPED.includes(name));
  check(
    unwanted.length === 0,
    `installed, though only development needs them: ${[...new Set(unwanted)].join(", ")}`,
  );
  const megabytes = (bytesUnder(join(folder, "node_modules")) / 1024 / 1024).toFixed(1);

  const servicePort = await freePort();
  const service = `http://127.0.0.1:${servicePort}`;
  const starting = performance.now();
  const server = start("signalbox-server", {
    PORT: String(servicePort),
    HOST: "127.0.0.1",
    DATA_DIR: join(folder, "data"),
    INIT_ADMIN_API_TOKENS: ADMIN,
    INIT_CLIENT_API_TOKENS: CLIENT,
  });
  await waitForHealth(server, `${service}/health`);
  const started = seconds(starting);

  const anonymous = await fetch(`${service}/api/admin/projects`);
  check(anonymous.status === 401, `the admin API without a token answered ${anonymous.status}, not 401`);
  await admin(service, "POST", "/projects/default/features", { name: FLAG });
  await admin(service, "POST", `/projects/default/features/${FLAG}/environments/development/on`);
  check((await sdkSees(service)) === true, `the Node SDK sees ${FLAG} off`);

  // The version the service reports is the installed package's.
  const { version } = JSON.parse(
    readFileSync(join(folder, "node_modules", "@signalbox", "server", "package.json"), "utf8"),
  );
  const document = await (await fetch(`${service}/docs/openapi.json`)).json();
  check(document.info.version === version, `the API document says ${document.info.version}, not ${version}`);
  const help = await promisify(execFile)(join(folder, "node_modules", ".bin", "signalbox"), ["--help"], {
    cwd: folder,
    env: cleanEnv({}),
  });
  check(help.stdout.includes("signalbox export"), `signalbox --help printed: ${help.stdout}`);

  const page = await fetch(`${service}/`);
  const indexHtml = readFileSync(
    join(folder, "node_modules", "@signalbox", "ui", "dist", "index.html"),
    "utf8",
  );
  check(page.status === 200, `GET / answered ${page.status}`);
  check((await page.text()) === indexHtml, "GET / is not the installed web UI's index.html");

  // Started once the flag exists: the proxy is healthy once it holds a configuration.
  const proxyPort = await freePort();
  const proxyUrl = `http://127.0.0.1:${proxyPort}/proxy`;
  const proxy = start("signalbox-proxy", {
    PORT: String(proxyPort),
    HOST: "127.0.0.1",
    SERVICE_URL: `${service}/api`,
    SERVICE_API_TOKEN: CLIENT,
    SERVICE_PROXY_CLIENT_KEYS: PROXY_KEY,
    SERVICE_ENVIRONMENT: "development",
    BACKUP_DIR: join(folder, "proxy-backup"),
  });
  await waitForHealth(proxy, `${proxyUrl}/health`);
  const refused = await fetch(`${proxyUrl}?userId=7`, { headers: { authorization: "proxy-wrong-key" } });
  check(refused.status === 401, `the proxy answered a wrong client key with ${refused.status}, not 401`);
  const answer = await fetch(`${proxyUrl}?userId=7`, { headers: { authorization: PROXY_KEY } });
  check(answer.status === 200, `the proxy answered ${answer.status}`);
  const { toggles } = await answer.json();
  check(
    toggles.some((toggle) => toggle.name === FLAG && toggle.enabled),
    `the proxy does not answer ${FLAG} enabled: ${JSON.stringify(toggles)}`,
  );

  console.log(
    [
      `package test passed in ${seconds(began)}: packed in ${packed}, installed in ${installed}, service up in ${started}`,
      `  installed: ${new Set(packages).size} packages, node_modules ${megabytes} MB, no development tooling or UI libraries`,
      `  engine warnings on Node ${process.versions.node}: ${
        engineWarnings.length === 0
          ? "none"
          : engineWarnings.map(([, pkg, range]) => `${pkg} (wants node ${range})`).join(", ")
      }`,
    ].join("\n"),
  );
}

let failure;
try {
  await main();
} catch (error) {
  failure = error;
}
killChildren("SIGTERM");
await Promise.all(children.map(({ exited }) => exited));
if (failure) {
  console.error(`package test failed: ${failure.message}`);
  for (const { name, output } of children) {
    console.error(`\n--- ${name}'s output ---\n${Buffer.concat(output).toString()}`);
  }
}
rmSync(folder, { recursive: true, force: true });
process.exit(failure ? 1 : 0);
