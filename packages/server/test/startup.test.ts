import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { loadReference } from "../../../reference/load.js";
import { loadConfig, VARIABLES } from "../src/config.js";
import { startServer } from "../src/server.js";
import { built } from "./support/built.js";
import { withDatabase } from "./support/global-setup.js";

const cli = built("cli.js");
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The command as an operator runs it, from a folder of its own; what it printed and how it ended. */
async function run(args: string[], env: Record<string, string>, cwd?: string) {
  const folder = cwd ?? (await mkdtemp(join(tmpdir(), "signalbox-cli-")));
  if (!cwd) cleanup.push(() => rm(folder, { recursive: true, force: true }));
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: folder,
    env: { PATH: process.env.PATH, LOG_LEVEL: "silent", PORT: "0", PASSWORD_HASH_COST: "test", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, "exit");
  return { code: code as number, stdout, stderr, folder };
}

const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "signalbox-data-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

/** One line: what failed and what to change, without a stack trace. */
function expectOneLine(stderr: string, ...mentions: string[]) {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  for (const mention of mentions) expect(lines[0]).toContain(mention);
}

interface UnleashMigrator {
  migrateDb(config: { db: Record<string, unknown> }): Promise<unknown>;
}

/**
 * An Unleash database: the pinned reference's own migrations where reference/ is installed
 * (as in CI), else the shape of one, its migration log and tables named like ours.
 */
async function createUnleashSchema(url: string, database: string, client: pg.Client) {
  const reference = await loadReference<UnleashMigrator>("unleash-server").catch(() => undefined);
  if (!reference) {
    await client.query(
      "create table migrations (id serial primary key, name text, run_on timestamp); create table projects (id text primary key); create table features (name text primary key)",
    );
    return;
  }
  const { hostname, port, username, password } = new URL(url);
  await reference.migrateDb({
    db: {
      user: decodeURIComponent(username),
      password,
      host: hostname,
      port: Number(port || 5432),
      database,
      ssl: false,
      schema: "public",
      driver: "postgres",
    },
  });
}

describe("the signalbox-server command", () => {
  it("prints usage with every variable for --help, touching nothing", async () => {
    const result = await run(["--help"], {});
    expect(result.code).toBe(0);
    for (const variable of VARIABLES) expect(result.stdout).toContain(variable.name);
    expect(await readdir(result.folder)).toEqual([]);
  });

  it("prints its version for --version", async () => {
    const result = await run(["--version"], {});
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("refuses a second process on a data folder in use, in one line naming the holder", async () => {
    const dataDir = await tempDir();
    const first = await startServer(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        PASSWORD_HASH_COST: "test",
      }),
    );
    cleanup.push(() => first.close());
    const second = await run([], { DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expectOneLine(second.stderr, dataDir, `process ${process.pid}`, "DATA_DIR");
    // The first instance is unharmed: it still answers, with its data folder intact.
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect(existsSync(join(dataDir, "signalbox.lock"))).toBe(true);
  });

  it("takes over the lock of a process that died", async () => {
    const dataDir = await tempDir();
    // A pid no process has: what a killed server leaves behind.
    await writeFile(join(dataDir, "signalbox.lock"), "2147483646");
    const server = await startServer(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        PASSWORD_HASH_COST: "test",
      }),
    );
    await server.close();
    expect(existsSync(join(dataDir, "signalbox.lock"))).toBe(false);
  });

  it("reports a port in use in one line before creating any data", async () => {
    const taken: Server = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    cleanup.push(() => new Promise((done) => taken.close(done)));
    const port = String((taken.address() as { port: number }).port);
    const dataDir = join(await tempDir(), "data");
    const result = await run([], { DATA_DIR: dataDir, PORT: port, HOST: "127.0.0.1" });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, `port ${port}`, "PORT");
    expect(existsSync(dataDir)).toBe(false);
  });

  it("reports an unreachable database in one line naming DATABASE_URL", async () => {
    const result = await run([], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere" });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "127.0.0.1:1/nowhere", "DATABASE_URL");
  });

  it("reports an admin token of narrow scope in one line, without echoing it", async () => {
    const result = await run([], { INIT_ADMIN_API_TOKENS: "default:development.hunter2" });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "INIT_ADMIN_API_TOKENS");
    expect(result.stderr).not.toContain("hunter2");
  });

  it("refuses a start-up token for several projects rather than making it one for every project", async () => {
    const result = await run([], { DATA_DIR: "memory://", INIT_CLIENT_API_TOKENS: "[]:development.hunter2" });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "INIT_CLIENT_API_TOKENS", "several projects");
    expect(result.stderr).not.toContain("hunter2");
  });

  it("reports a start-up token for a missing environment in one line naming its variable", async () => {
    const result = await run([], { DATA_DIR: "memory://", INIT_CLIENT_API_TOKENS: "*:staging.abc" });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "INIT_CLIENT_API_TOKENS", "staging");
  });

  it("logs one JSON object per line with an ISO time, the level's name and the service's name", async () => {
    const child = spawn(process.execPath, [cli], {
      env: {
        PATH: process.env.PATH,
        PASSWORD_HASH_COST: "test",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: "memory://",
        LOG_FORMAT: "json",
      },
    });
    cleanup.push(async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    });
    const [chunk] = await once(child.stdout, "data");
    const line = JSON.parse(String(chunk).split("\n")[0]!);
    expect(line).toMatchObject({ level: "info", name: "signalbox-server", msg: expect.any(String) });
    expect(new Date(line.time).toISOString()).toBe(line.time);
  });

  it.runIf(process.env.DATABASE_URL)(
    "refuses a database holding another application's tables and leaves it untouched",
    async () => {
      const url = process.env.DATABASE_URL!;
      const name = `signalbox_foreign_${process.pid}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      cleanup.push(async () => {
        await admin.query(`drop database if exists ${name}`);
        await admin.end();
      });
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      const foreign = new pg.Client({ connectionString: withDatabase(url, name) });
      await foreign.connect();
      await createUnleashSchema(url, name, foreign);
      const tables = async () =>
        (
          await foreign.query(
            "select table_name from information_schema.tables where table_schema = 'public' order by 1",
          )
        ).rows.map((row) => row.table_name);
      const before = await tables();
      const result = await run([], { DATABASE_URL: withDatabase(url, name) });
      expect(result.code).toBe(1);
      expectOneLine(result.stderr, "another application", "DATABASE_URL");
      expect(await tables()).toEqual(before);
      await foreign.end();
    },
  );
});
