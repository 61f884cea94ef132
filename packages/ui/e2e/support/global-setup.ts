import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { ADMIN_PASSWORD, ADMIN_TOKEN, CLIENT_TOKEN, RELEASE_MINUTE_MS } from "./service";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });

async function up(url: string, service: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`);
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url} did not come up`);
}

/**
 * Builds what is stale (the packages and the UI, as `npm start` does) and starts the flag
 * service as `npm start` runs it, its own process on a free port, on an embedded database
 * in memory. Tests find it in SIGNALBOX_URL; what this returns stops it.
 */
export default async function globalSetup() {
  // @ts-expect-error: a plain script of the repository's, without type declarations
  const { buildStale } = await import("../../../../scripts/build.mjs");
  buildStale();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // CI exports DATABASE_URL for the server's own tests; a service on that shared database
  // would start from whatever an earlier run left there, and its flows assume an empty one.
  const { DATABASE_URL: _shared, ...env } = process.env;
  const service = spawn(process.execPath, [createRequire(import.meta.url).resolve("@signalbox/server/cli")], {
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: "memory://",
      LOG_LEVEL: "warn",
      INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
      INIT_CLIENT_API_TOKENS: CLIENT_TOKEN,
      UNLEASH_DEFAULT_ADMIN_USERNAME: "admin",
      UNLEASH_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // The integrations flow's webhook receiver listens on 127.0.0.1, which addons refuse by
      // default; other private addresses stay refused, as a newcomer's flow shows.
      UNLEASH_ALLOW_LIST_INTEGRATION: "127.0.0.1",
      // The release flows see safeguards act and milestones hand over within seconds. Only
      // release plans and safeguards read these: no other flow waits on them.
      SAFEGUARD_INTERVAL_MS: "500",
      SAFEGUARD_WINDOW_MS: "5000",
      // A sample leaves the window 5 seconds after it was reported, not up to a minute later.
      IMPACT_METRICS_RESOLUTION_SECONDS: "1",
      // A transition condition's "minute" is 2 seconds: a 30-minute progression is a minute.
      RELEASE_PLAN_MINUTE_MS: String(RELEASE_MINUTE_MS),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await up(url, service);
  process.env.SIGNALBOX_URL = url;
  return async () => {
    service.kill("SIGTERM");
    await new Promise((done) => service.once("exit", done));
  };
}
