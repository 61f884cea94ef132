// `npm start`: the flag service (on its embedded database, or DATABASE_URL's) and a proxy connected to it,
// with tokens made on first start and kept in the data folder, so a newcomer can use
// both at once. Each runs as its own process, as in a real deployment, bound to this
// machine only: the quick start hands out a full-access admin token.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { buildStale } from "./build.mjs";

const require = createRequire(import.meta.url);

const USAGE = `Usage: npm start [-- --help]

Builds what changed since the last build, then starts the flag service with its web UI and
a proxy connected to it, each in its own process, and prints where they are and the tokens
to use them with. Ctrl-C stops both.

Set in the environment:
  PORT          the flag service's and web UI's port (default 4242)
  PROXY_PORT    the proxy's port (default 3000)
  HOST          the address both listen on (default 127.0.0.1, this machine only;
                0.0.0.0 opens them to the network)
  DATA_DIR      the folder of the embedded database, the quick start's tokens and the
                proxy's last configuration (default ./data)
  DATABASE_URL  a PostgreSQL database to use instead of the embedded one,
                e.g. postgres://user:password@host:5432/signalbox (the tokens stay in DATA_DIR)

Every other variable reaches both processes: see npx signalbox-server --help and
npx signalbox-proxy --help once built.
`;

function fail(message, code = 1) {
  console.error(`npm start: ${message}`);
  process.exit(code);
}

const [argument] = process.argv.slice(2);
if (argument === "--help" || argument === "-h") {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (argument !== undefined) fail(`unknown argument ${argument}; see npm start -- --help`, 2);

function portIn(variable, fallback) {
  const text = process.env[variable] ?? fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    fail(`${variable} must be a port number from 1 to 65535, not "${text}"`);
  }
  return port;
}

const host = process.env.HOST ?? "127.0.0.1";
const dataDir = resolve(process.env.DATA_DIR ?? "data");
const service = { name: "flag service", variable: "PORT", port: portIn("PORT", "4242") };
const proxy = { name: "proxy", variable: "PROXY_PORT", port: portIn("PROXY_PORT", "3000") };
if (service.port === proxy.port)
  fail(`PROXY_PORT and PORT are both ${proxy.port}: set PROXY_PORT to another`);
// How this script, the proxy and the person reach the service: the loopback address it listens on.
const local = host === "0.0.0.0" || host === "::" || host === "127.0.0.1" ? "127.0.0.1" : host;
const address = local.includes(":") ? `[${local}]` : local;
const shown = local === "127.0.0.1" ? "localhost" : address;

/** Why `port` cannot be listened on, as the children would find, or undefined when it is free. */
function portProblem({ name, variable, port }) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", (error) => {
      switch (error.code) {
        case "EADDRINUSE":
          return done(
            `port ${port} on ${host}, for the ${name}, is already in use by another process: ` +
              `stop it, or set ${variable} to a free port`,
          );
        case "EACCES":
          return done(`port ${port}, for the ${name}, needs privileges: set ${variable} to 1024 or above`);
        case "EADDRNOTAVAIL":
        case "ENOTFOUND":
        case "EAI_AGAIN":
        case "EAFNOSUPPORT":
          return done(
            `HOST ${host} is not an address of this machine (${error.code}): set HOST to one, or 0.0.0.0`,
          );
      }
      done(`cannot listen on ${host}:${port} (${error.code ?? error.message}): check ${variable} and HOST`);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => done(undefined)));
  });
}

// Both ports before anything else: a build, a data folder or a service started for nothing
// helps no one, and each process would name its port PORT.
{
  const problems = new Set([await portProblem(service), await portProblem(proxy)].filter(Boolean));
  if (problems.size > 0) fail([...problems].join("; "));
}

try {
  buildStale();
} catch (error) {
  fail(error.message);
}

// The first admin's password: every kind of character the service's policy asks for, and no
// character three times in a row.
function adminPassword() {
  for (;;) {
    const candidate = `${randomBytes(15).toString("base64url")}-aA1`;
    if (!/(.)\1\1/.test(candidate)) return candidate;
  }
}

const tokenFile = join(dataDir, "quickstart-tokens.json");

// A file from before logins existed gets the admin's password added, keeping its tokens.
function tokens() {
  const secret = () => randomBytes(16).toString("hex");
  const kept = existsSync(tokenFile) ? JSON.parse(readFileSync(tokenFile, "utf8")) : undefined;
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
  writeFileSync(tokenFile, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return made;
}

/** The database the service uses, as the banner names it: never with DATABASE_URL's password. */
function databaseInUse() {
  if (!process.env.DATABASE_URL) return `embedded, in ${dataDir}`;
  try {
    const url = new URL(process.env.DATABASE_URL);
    const server = url.hostname ? `${url.hostname}:${url.port || 5432}` : "the local socket";
    const database = decodeURIComponent(url.pathname.slice(1)) || "named after the user";
    return `PostgreSQL at ${server}, database ${database} (DATABASE_URL)`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}

const children = [];
let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const { child } of children) child.kill("SIGTERM");
  await Promise.all(children.map(({ closed }) => closed));
  process.exit(code);
}
process.on("SIGINT", () => stop());
process.on("SIGTERM", () => stop());
// Under `npm start` (which runs this script in its place, with `exec`), npm forwards SIGTERM;
// if npm is killed outright this process is re-parented, and stops everything too.
if (process.env.npm_lifecycle_event === "start") {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop(), 1000).unref();
}

/**
 * Starts one process and resolves once it says, over IPC, that it listens: then this
 * process's child, and not another one on the same port, is the one answering there. Its
 * stderr is held until then, so that a failure to start is told once: the port to change
 * when another process took it meanwhile, otherwise the child's own line.
 */
function launch(part, bin, env) {
  // The IPC channel also stops a child whose supervisor dies, even by SIGKILL: it sees it close.
  const child = spawn(process.execPath, [bin], {
    env: { ...process.env, HOST: host, ...env },
    stdio: ["inherit", "inherit", "pipe", "ipc"],
  });
  children.push({ child, closed: once(child, "close").catch(() => {}) });
  let held = [];
  child.stderr.on("data", (chunk) => (held ? held.push(chunk) : process.stderr.write(chunk)));
  return new Promise((listening) => {
    child.on("message", (message) => {
      if (message !== "listening" || !held) return;
      for (const chunk of held) process.stderr.write(chunk);
      held = undefined;
      listening();
    });
    child.on("close", async (code, signal) => {
      if (stopping) return;
      if (!held) {
        console.error(`npm start: the ${part.name} stopped (${signal ?? code}); stopping the rest`);
        return stop(code || 1);
      }
      const taken = await portProblem(part);
      if (taken) console.error(`npm start: ${taken}`);
      else {
        for (const chunk of held) process.stderr.write(chunk);
        if (signal) console.error(`npm start: the ${part.name} was stopped by ${signal} while starting`);
      }
      return stop(code || 1);
    });
  });
}

const token = tokens();
await launch(service, require.resolve("@signalbox/server/cli"), {
  PORT: String(service.port),
  DATA_DIR: dataDir,
  INIT_ADMIN_API_TOKENS: token.admin,
  INIT_CLIENT_API_TOKENS: token.client,
  INIT_FRONTEND_API_TOKENS: token.frontend,
  // Made into the admin only on the first start, when there are no users yet.
  UNLEASH_DEFAULT_ADMIN_USERNAME: "admin",
  UNLEASH_DEFAULT_ADMIN_PASSWORD: token.adminPassword,
});
await launch(proxy, require.resolve("@signalbox/proxy/cli"), {
  PORT: String(proxy.port),
  SERVICE_URL: `http://${address}:${service.port}/api`,
  SERVICE_API_TOKEN: token.client,
  SERVICE_PROXY_CLIENT_KEYS: token.proxyClientKey,
  SERVICE_ENVIRONMENT: "development",
  // Every second rather than every five, so what a newcomer changes shows up at once.
  SERVICE_FETCH_INTERVAL: "1000",
  // The last good configuration, kept with the rest of the quick start's data.
  BACKUP_DIR: join(dataDir, "proxy"),
});
// Listening is not yet serving: the proxy answers once it has the service's flags.
const healthy = () =>
  fetch(`http://${address}:${proxy.port}/proxy/health`).then(
    (response) => response.ok,
    () => false,
  );
while (!(await healthy())) await new Promise((done) => setTimeout(done, 100));

console.log(`
Signalbox is running.

  web UI         http://${shown}:${service.port}
  flag service   http://${shown}:${service.port}/api        (admin API under /api/admin, SDK API under /api/client)
  proxy          http://${shown}:${proxy.port}/proxy
  database       ${databaseInUse()}

  log in at http://${shown}:${service.port} as admin / ${token.adminPassword}

  admin token        ${token.admin}
  client SDK token   ${token.client}
  frontend token     ${token.frontend}
  proxy client key   ${token.proxyClientKey}

  The tokens and the password are kept in ${tokenFile}. Ctrl-C stops both.
`);
