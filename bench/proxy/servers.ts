// The two proxies as their users run them: each one's own command, configured by its
// environment variables, in a process of its own (no TypeScript loader, whose modules and
// compile caches would count in the resident memory measured).
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { type ServerProcess, waitFor } from "../lib/process.js";
import { SERVICE_TOKENS } from "./upstream.js";

/** The committed bin, which runs the built dist/cli.js (`node scripts/build.mjs` first). */
const SIGNALBOX_BIN =
  process.env.SIGNALBOX_PROXY_BIN ??
  new URL("../../packages/proxy/bin/signalbox-proxy.js", import.meta.url).pathname;

function referenceEntry(): string {
  const fromReference = createRequire(new URL("../../reference/package.json", import.meta.url));
  try {
    return join(dirname(fromReference.resolve("@unleash/proxy")), "start.js");
  } catch {
    throw new Error("@unleash/proxy is not installed in reference/: run `npm ci --prefix reference` first");
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

/** Starts `entry` on a free port and resolves once its health check answers, i.e. once it has synced. */
async function start(entry: string, env: Record<string, string>, execArgv: string[]): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = fork(entry, [], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: "error" },
    execArgv,
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`${entry} exited with ${code} before it was ready`))),
  );
  await Promise.race([
    waitFor(async () => (await fetch(`${url}/proxy/health`)).ok, `${entry} to sync`),
    exited,
  ]);
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * `signalbox-proxy`; `BENCH_PROXY_NODE_FLAGS` (space-separated) adds Node options to its
 * process, to try one before setting it where the proxy is started. `env` overrides its
 * variables, for another upstream's tokens.
 */
export function startSignalbox(
  upstreamUrl: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const flags = (process.env.BENCH_PROXY_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  return start(
    SIGNALBOX_BIN,
    {
      SERVICE_URL: upstreamUrl,
      SERVICE_API_TOKEN: "bench-token",
      SERVICE_PROXY_CLIENT_KEYS: "bench-key",
      SERVICE_EDGE_TOKENS: SERVICE_TOKENS.client,
      SERVICE_FETCH_INTERVAL: "5000",
      HOST: "127.0.0.1",
      BACKUP_DIR: "off",
      ...env,
    },
    flags,
  );
}

/** `@unleash/proxy`'s start script, as its Docker image runs it. */
export function startReference(upstreamUrl: string): Promise<ServerProcess> {
  return start(
    referenceEntry(),
    {
      UNLEASH_URL: upstreamUrl,
      UNLEASH_API_TOKEN: "bench-token",
      UNLEASH_PROXY_CLIENT_KEYS: "bench-key",
      UNLEASH_FETCH_INTERVAL: "5000",
    },
    [],
  );
}
