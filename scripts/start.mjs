// `npm start`: the flag service on its embedded database and a proxy connected to it,
// with tokens made on first start and kept in the data folder, so a newcomer can use
// both at once. Each runs as its own process, as in a real deployment, bound to this
// machine only: the quick start hands out a full-access admin token.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { buildStale } from "./build.mjs";

const require = createRequire(import.meta.url);

try {
  buildStale();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const dataDir = resolve(process.env.DATA_DIR ?? "data");
const servicePort = process.env.PORT ?? "4242";
const proxyPort = process.env.PROXY_PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
// How this script and the proxy reach the service: the loopback address it listens on.
const local = host === "0.0.0.0" || host === "::" || host === "127.0.0.1" ? "127.0.0.1" : host;
const serviceUrl = `http://${local}:${servicePort}`;

// The first admin's password: every kind of character the service's policy asks for, and no
// character three times in a row.
function adminPassword() {
  for (;;) {
    const candidate = `${randomBytes(15).toString("base64url")}-aA1`;
    if (!/(.)\1\1/.test(candidate)) return candidate;
  }
}

// A file from before logins existed gets the admin's password added, keeping its tokens.
function tokens() {
  const file = join(dataDir, "quickstart-tokens.json");
  const secret = () => randomBytes(16).toString("hex");
  const kept = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
  if (kept?.adminPassword) return kept;
  const made = kept
    ? { ...kept, adminPassword: adminPassword() }
    : {
        admin: `*:*.${secret()}`,
        client: `*:development.${secret()}`,
        frontend: `*:development.${secret()}`,
        proxyClientKey: `proxy-${secret()}`,
        adminPassword: adminPassword(),
      };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return made;
}

function run(name, bin, env) {
  // An IPC channel: a child whose supervisor dies, even by SIGKILL, sees it close and stops.
  const child = spawn(process.execPath, [bin], {
    env: { ...process.env, HOST: host, ...env },
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped (${signal ?? code}); stopping the rest`);
      stop(code ?? 1);
    }
  });
  return child;
}

async function waitUntilUp(url) {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (stopping) process.exit(process.exitCode);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url} did not come up`);
}

const token = tokens();
const children = [];
let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  process.exitCode = code;
}
process.on("SIGINT", () => stop());
process.on("SIGTERM", () => stop());
// Under `npm start` (which runs this script in its place, with `exec`), npm forwards SIGTERM;
// if npm is killed outright this process is re-parented, and stops everything too.
if (process.env.npm_lifecycle_event === "start") {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop(), 1000).unref();
}

children.push(
  run("service", require.resolve("@signalbox/server/cli"), {
    PORT: servicePort,
    DATA_DIR: dataDir,
    INIT_ADMIN_API_TOKENS: token.admin,
    INIT_CLIENT_API_TOKENS: token.client,
    INIT_FRONTEND_API_TOKENS: token.frontend,
    // Made into the admin only on the first start, when there are no users yet.
    UNLEASH_DEFAULT_ADMIN_USERNAME: "admin",
    UNLEASH_DEFAULT_ADMIN_PASSWORD: token.adminPassword,
  }),
);
await waitUntilUp(`${serviceUrl}/health`);
children.push(
  run("proxy", require.resolve("@signalbox/proxy/cli"), {
    PORT: proxyPort,
    SERVICE_URL: `${serviceUrl}/api`,
    SERVICE_API_TOKEN: token.client,
    SERVICE_PROXY_CLIENT_KEYS: token.proxyClientKey,
    SERVICE_ENVIRONMENT: "development",
    // Every second rather than every five, so what a newcomer changes shows up at once.
    SERVICE_FETCH_INTERVAL: "1000",
    // The last good configuration, kept with the rest of the quick start's data.
    BACKUP_DIR: join(dataDir, "proxy"),
  }),
);
await waitUntilUp(`http://${local}:${proxyPort}/proxy/health`);

console.log(`
Signalbox is running.

  web UI         http://localhost:${servicePort}
  flag service   http://localhost:${servicePort}/api        (admin API under /api/admin, SDK API under /api/client)
  proxy          http://localhost:${proxyPort}/proxy

  log in at http://localhost:${servicePort} as admin / ${token.adminPassword}

  admin token        ${token.admin}
  client SDK token   ${token.client}
  frontend token     ${token.frontend}
  proxy client key   ${token.proxyClientKey}

  (kept in ${join(dataDir, "quickstart-tokens.json")}; Ctrl-C stops both)
`);
