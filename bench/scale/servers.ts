// The three services the benchmark compares, each in a child process of its own: Signalbox
// from its build (packages/server/dist, as `npm start` runs it) on PostgreSQL and on its
// embedded database, and unleash-server 8.2.0 on PostgreSQL.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropDatabase, freshDatabase } from "../lib/database.js";
import { freePort, waitFor } from "../lib/process.js";
import { must, send } from "./http.js";

export const SERVICES = ["signalbox-pg", "signalbox-embedded", "reference"] as const;
export type ServiceName = (typeof SERVICES)[number];
export const LABELS: Record<ServiceName, string> = {
  "signalbox-pg": "Signalbox, PostgreSQL",
  "signalbox-embedded": "Signalbox, embedded",
  reference: "unleash-server 8.2.0",
};

export const TOKENS = {
  admin: "*:*.scale-bench-admin",
  client: "*:development.scale-bench-client",
  frontend: "*:development.scale-bench-frontend",
};
const ADMIN = { username: "admin", password: "Scale-bench-4-admin!" };
/** The reference's limit on an import body (express.json 500kB); Signalbox is given the same. */
export const IMPORT_LIMIT = 500 * 1024;

export interface Service {
  name: ServiceName;
  url: string;
  pid: number;
  createEnvironment(body: Record<string, unknown>): Promise<void>;
  createProject(body: Record<string, unknown>): Promise<void>;
  /** How its process ended, if it has: a failed request may be a crash. */
  ended(): string | undefined;
  /** A personal access token of the first admin: imports refuse admin tokens on both. */
  personalToken(): Promise<string>;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL("../../", import.meta.url));
const newest = (path: string): number =>
  statSync(path).isDirectory()
    ? Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))))
    : statSync(path).mtimeMs;

/** The built service; says so when its sources changed after the build. */
export function signalboxBuild(): { cli: string; stale: boolean; builtAt: Date } {
  const cli = join(root, "packages/server/dist/cli.js");
  if (!existsSync(cli))
    throw new Error("packages/server/dist is missing: run `node scripts/build.mjs` first");
  const built = statSync(join(root, "packages/server/dist/.tsbuildinfo")).mtimeMs;
  const sources = ["server", "engine", "protocol"].map((name) => newest(join(root, "packages", name, "src")));
  return { cli, stale: Math.max(...sources) > built, builtAt: new Date(built) };
}

// Rate limits the reference applies by default (its SDK and search routes allow 15 to 20 000
// calls a minute from one address): a benchmark from one address would measure the limiter.
const REFERENCE_LIMITS = {
  TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE: "100000000",
  SDK_API_RATE_LIMIT_PER_MINUTE: "100000000",
  SEARCH_FEATURES_RATE_LIMIT_PER_MINUTE: "100000000",
  REGISTER_CLIENT_RATE_LIMIT_PER_MINUTE: "100000000",
  CLIENT_METRICS_RATE_LIMIT_PER_MINUTE: "100000000",
  UNLEASH_FEATURE_FLAGS_LIMIT: "1000000",
  // Signalbox's pool size; the reference's 4 runs out under 4 concurrent imports (each holds
  // one connection for its transaction and asks for more), and the reference then exits.
  DATABASE_POOL_MAX: "10",
};

const common = {
  LOG_LEVEL: "error",
  DATABASE_SSL: "false",
  SEND_TELEMETRY: "false",
  INIT_ADMIN_API_TOKENS: TOKENS.admin,
  INIT_CLIENT_API_TOKENS: TOKENS.client,
  INIT_FRONTEND_API_TOKENS: TOKENS.frontend,
  UNLEASH_DEFAULT_ADMIN_USERNAME: ADMIN.username,
  UNLEASH_DEFAULT_ADMIN_PASSWORD: ADMIN.password,
};

function ending(child: ChildProcess): () => string | undefined {
  let ended: string | undefined;
  child.once("exit", (code, signal) => {
    ended = signal ? `killed by ${signal}` : `exited with ${code}`;
  });
  return () => ended;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

/**
 * Logs in as the first admin and creates a token. The reference may answer the first calls
 * after a login with 401 (on a busy machine its session is not yet stored): the token is
 * asked for again with the same session for up to 30 s.
 */
async function personalToken(url: string): Promise<string> {
  const login = await fetch(`${url}/auth/simple/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  });
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await send(
      url,
      "",
      "POST",
      "/api/admin/user/tokens",
      { description: "scale benchmark", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      // Signalbox takes a change made with a session only from its own pages.
      { cookie, "sec-fetch-site": "same-origin" },
    );
    if (answer.status < 300) return (JSON.parse(answer.text) as { secret: string }).secret;
    if (answer.status !== 401 || Date.now() > deadline) {
      const names = cookie.split("; ").map((pair) => pair.split("=")[0]);
      throw new Error(
        `token with the session (${names.join(", ")}): ${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function startSignalbox(name: "signalbox-pg" | "signalbox-embedded"): Promise<Service> {
  const { cli } = signalboxBuild();
  const port = await freePort();
  const database = "bench_scale_signalbox";
  const dataDir = name === "signalbox-embedded" ? mkdtempSync(join(tmpdir(), "signalbox-scale-")) : undefined;
  // A CPU profile of the service per size, written as it stops, to see what grows.
  const profile = process.env.SCALE_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SCALE_PROFILE_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, cli], {
    env: {
      ...process.env,
      ...common,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: dataDir ? "" : await freshDatabase(database),
      DATA_DIR: dataDir ?? "",
      BODY_LIMIT: String(IMPORT_LIMIT),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await Promise.race([
    waitFor(async () => (await fetch(`${url}/health`)).ok, `${name} to start`, 300_000),
    exited.then((code) => Promise.reject(new Error(`${name} exited with ${code} before answering`))),
  ]);
  const stop = stopper(child);
  const ended = ending(child);
  const create = (path: string) => async (body: Record<string, unknown>) => {
    await must(url, TOKENS.admin, "POST", path, body);
  };
  return {
    name,
    url,
    pid: child.pid!,
    createEnvironment: create("/api/admin/environments"),
    createProject: create("/api/admin/projects"),
    ended,
    personalToken: () => personalToken(url),
    stop: async () => {
      await stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      else await dropDatabase(database);
    },
  };
}

async function startReference(): Promise<Service> {
  const database = "bench_scale_reference";
  const child = fork(fileURLToPath(new URL("./reference.mjs", import.meta.url)), [], {
    env: { ...process.env, ...common, ...REFERENCE_LIMITS, DATABASE_URL: await freshDatabase(database) },
    // Its database layer warns about a pg usage it has yet to change; not ours to see.
    execArgv: ["--no-deprecation"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the reference exited with ${code} before listening`)));
    child.once("message", (message) => resolve(String((message as { url: string }).url)));
  });
  const pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  let nextId = 1;
  child.on("message", (message) => {
    const answer = message as { id?: number; ok: boolean; error?: string };
    const waiter = answer.id === undefined ? undefined : pending.get(answer.id);
    if (!waiter) return;
    pending.delete(answer.id!);
    if (answer.ok) waiter.resolve();
    else waiter.reject(new Error(answer.error));
  });
  const ipc = (op: string) => (body: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, op, body });
    });
  const stop = stopper(child);
  const ended = ending(child);
  return {
    name: "reference",
    url,
    pid: child.pid!,
    createEnvironment: ipc("createEnvironment"),
    createProject: ipc("createProject"),
    ended,
    personalToken: () => personalToken(url),
    stop: async () => {
      await stop();
      await dropDatabase(database);
    },
  };
}

export function startService(name: ServiceName): Promise<Service> {
  return name === "reference" ? startReference() : startSignalbox(name);
}
