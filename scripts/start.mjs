// `npm start`: the flag service on its embedded database and a proxy connected to it,
// with tokens made on first start and kept in the data folder, so a newcomer can use
// both at once. Each runs as its own process, as in a real deployment.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const require = createRequire(import.meta.url);
const dataDir = resolve(process.env.DATA_DIR ?? "data");
const servicePort = process.env.PORT ?? "4242";
const proxyPort = process.env.PROXY_PORT ?? "3000";
const serviceUrl = `http://localhost:${servicePort}`;

function tokens() {
  const file = join(dataDir, "quickstart-tokens.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const secret = () => randomBytes(16).toString("hex");
  const made = {
    admin: `*:*.${secret()}`,
    client: `*:development.${secret()}`,
    frontend: `*:development.${secret()}`,
    proxyClientKey: `proxy-${secret()}`,
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return made;
}

function run(name, bin, env) {
  const child = spawn(process.execPath, [bin], { env: { ...process.env, ...env }, stdio: "inherit" });
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

children.push(
  run("service", require.resolve("@signalbox/server/cli"), {
    PORT: servicePort,
    DATA_DIR: dataDir,
    INIT_ADMIN_API_TOKENS: token.admin,
    INIT_CLIENT_API_TOKENS: token.client,
    INIT_FRONTEND_API_TOKENS: token.frontend,
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
  }),
);
await waitUntilUp(`http://localhost:${proxyPort}/proxy/health`);

console.log(`
Signalbox is running.

  flag service   ${serviceUrl}            (admin API under /api/admin, SDK API under /api/client)
  proxy          http://localhost:${proxyPort}/proxy

  admin token        ${token.admin}
  client SDK token   ${token.client}
  frontend token     ${token.frontend}
  proxy client key   ${token.proxyClientKey}

  (kept in ${join(dataDir, "quickstart-tokens.json")}; Ctrl-C stops both)
`);
