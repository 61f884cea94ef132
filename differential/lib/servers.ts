import { type ChildProcess, fork } from "node:child_process";
import pg from "pg";

export type Side = "reference" | "signalbox";
export const SIDES: readonly Side[] = ["reference", "signalbox"];

export interface Tokens {
  admin: string;
  client: string;
  frontend: string;
}

export interface RunningService {
  side: Side;
  url: string;
  child: ChildProcess;
  /** The reference only: asks its process to do what its open-source API cannot. */
  ipc(op: "createEnvironment" | "createProject", body: Record<string, unknown>): Promise<unknown>;
  stop(): Promise<void>;
}

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the same PostgreSQL server; returns its URL. */
export async function createDatabase(name: string): Promise<string> {
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

export async function startService(side: Side, database: string, tokens: Tokens): Promise<RunningService> {
  const script = new URL(
    side === "reference" ? "./reference-child.ts" : "./signalbox-child.ts",
    import.meta.url,
  );
  const child = fork(script.pathname, [], {
    env: {
      ...process.env,
      DATABASE_URL: database,
      DATABASE_SSL: "false",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "error",
      SEND_TELEMETRY: "false",
      INIT_ADMIN_API_TOKENS: tokens.admin,
      INIT_CLIENT_API_TOKENS: tokens.client,
      INIT_FRONTEND_API_TOKENS: tokens.frontend,
    },
    // The reference's database layer warns about a pg usage it has yet to change; not ours to see.
    execArgv: [
      "--conditions=signalbox-source",
      "--import",
      "tsx",
      ...(side === "reference" ? ["--no-deprecation"] : []),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${side} exited with ${code} before listening`));
    child.once("exit", onExit);
    child.once("message", (message) => {
      child.off("exit", onExit);
      resolve(String((message as { url: string }).url));
    });
  });
  child.on("message", (message) => {
    const answer = message as { id: number; ok: boolean; result?: unknown; error?: string };
    const waiter = pending.get(answer.id);
    if (!waiter) return;
    pending.delete(answer.id);
    if (answer.ok) waiter.resolve(answer.result);
    else waiter.reject(new Error(answer.error));
  });
  return {
    side,
    url,
    child,
    ipc: (op, body) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        child.send({ id, op, body });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
