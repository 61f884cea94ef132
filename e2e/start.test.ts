import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

// `npm start` as a person runs it, in real processes: what it prints, when, and what it
// leaves behind. Nothing here waits for a deadline: each step waits for the process to say
// or do what it should, and the timeouts only keep a hung start from hanging the run.

const root = resolve(import.meta.dirname, "..");
const RUNNING = "Signalbox is running.";
const STARTS = { timeout: 600_000 };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A data folder's path in a fresh temporary folder; the folder itself is not made. */
async function dataFolder(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), "signalbox-start-"));
  cleanup.push(() => rm(parent, { recursive: true, force: true }));
  return join(parent, "data");
}

function listen(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => done(server));
  });
}

const close = (server: Server) => new Promise((done) => server.close(done));

/** A port another process holds for the rest of the test. */
async function busyPort(): Promise<number> {
  const server = await listen(0);
  cleanup.push(() => close(server));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = await listen(0);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

const isFree = (port: number) =>
  listen(port).then(
    (server) => close(server).then(() => true),
    () => false,
  );

/** `npm start` in the repository with only these settings (and PATH and HOME). */
function npmStart(settings: Record<string, string>, args: string[] = []) {
  const child = spawn("npm", ["start", ...(args.length > 0 ? ["--", ...args] : [])], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: "127.0.0.1", ...settings },
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const ended = once(child, "close").then(([code]) => ({ code: code as number | null, ...output }));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await ended;
  });
  return { child, output, ended };
}

/** The lines it wrote to stderr. */
const linesOf = (text: string) => text.trim().split("\n").filter(Boolean);

describe("npm start refuses what it cannot do, in one line, before anything else", () => {
  it("names PROXY_PORT when the proxy's port is taken, and makes nothing", async () => {
    const dataDir = await dataFolder();
    const port = await busyPort();
    const { code, stdout, stderr } = await npmStart({
      PORT: String(await freePort()),
      PROXY_PORT: String(port),
      DATA_DIR: dataDir,
    }).ended;
    expect(code).not.toBe(0);
    const lines = linesOf(stderr);
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toContain(`port ${port}`);
    expect(lines[0]).toContain("set PROXY_PORT to a free port");
    expect(lines[0]).not.toMatch(/\bset PORT\b/);
    expect(stdout).not.toContain(RUNNING);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("names PORT when the flag service's port is taken, and makes nothing", async () => {
    const dataDir = await dataFolder();
    const port = await busyPort();
    const { code, stdout, stderr } = await npmStart({
      PORT: String(port),
      PROXY_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    }).ended;
    expect(code).not.toBe(0);
    const lines = linesOf(stderr);
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toContain(`port ${port}`);
    expect(lines[0]).toContain("set PORT to a free port");
    expect(lines[0]).not.toContain("PROXY_PORT");
    expect(stdout).not.toContain(RUNNING);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("explains its settings with --help, and starts nothing", async () => {
    const dataDir = await dataFolder();
    const { code, stdout, stderr } = await npmStart({ DATA_DIR: dataDir }, ["--help"]).ended;
    expect(code).toBe(0);
    expect(stderr).toBe("");
    for (const variable of ["PORT", "PROXY_PORT", "HOST", "DATA_DIR", "DATABASE_URL"]) {
      expect(stdout).toMatch(new RegExp(`^ {2}${variable} +\\S`, "m"));
    }
    expect(stdout).not.toContain(RUNNING);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("refuses an argument it does not know", async () => {
    const dataDir = await dataFolder();
    const { code, stderr } = await npmStart({ DATA_DIR: dataDir }, ["--hepl"]).ended;
    expect(code).toBe(2);
    expect(linesOf(stderr)).toEqual(["npm start: unknown argument --hepl; see npm start -- --help"]);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("npm start", () => {
  // What CI has done already (`npm run build` comes first); on a working copy it builds what
  // changed, so that the start below builds nothing and prints nothing of a build.
  beforeAll(() => {
    const build = spawnSync(process.execPath, [join(root, "scripts/build.mjs")], { encoding: "utf8" });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, STARTS.timeout);

  /** Starts it and waits until it says it is running, failing with its output if it ends first. */
  async function started(settings: Record<string, string>) {
    const start = npmStart(settings);
    const running = new Promise<void>((done) => {
      const look = () => start.output.stdout.includes(RUNNING) && done();
      start.child.stdout.on("data", look);
    });
    const ended = start.ended.then(({ code, stdout, stderr }) => {
      throw new Error(`npm start ended (${code}) before it was running:\n${stdout}\n${stderr}`);
    });
    await Promise.race([running, ended]);
    ended.catch(() => {});
    return start;
  }

  it(
    "says it is running only once both answer, names the embedded database and where the tokens are, and stops both",
    STARTS,
    async () => {
      const dataDir = await dataFolder();
      const [servicePort, proxyPort] = [await freePort(), await freePort()];
      const start = await started({
        PORT: String(servicePort),
        PROXY_PORT: String(proxyPort),
        DATA_DIR: dataDir,
      });
      // Asked at once, without waiting: "running" came after both were up.
      const health = await fetch(`http://127.0.0.1:${servicePort}/health`);
      expect([health.status, await health.json()]).toEqual([200, { health: "GOOD" }]);
      const tokens = JSON.parse(readFileSync(join(dataDir, "quickstart-tokens.json"), "utf8"));
      const flags = await fetch(`http://127.0.0.1:${proxyPort}/proxy?userId=42`, {
        headers: { authorization: tokens.proxyClientKey },
      });
      expect(flags.status).toBe(200);
      expect(await flags.json()).toEqual({ toggles: [] });

      const banner = start.output.stdout.slice(start.output.stdout.indexOf(RUNNING));
      expect(banner).toMatch(new RegExp(`^ +database +embedded, in ${dataDir}$`, "m"));
      expect(banner).toContain(`kept in ${join(dataDir, "quickstart-tokens.json")}`);
      for (const token of [tokens.admin, tokens.client, tokens.frontend, tokens.proxyClientKey]) {
        expect(banner).toContain(token);
      }

      start.child.kill("SIGTERM");
      await start.ended;
      expect([await isFree(servicePort), await isFree(proxyPort)]).toEqual([true, true]);
    },
  );

  it.runIf(process.env.DATABASE_URL)(
    "names the PostgreSQL server and database of DATABASE_URL, never its password",
    STARTS,
    async () => {
      const name = `signalbox_start_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      cleanup.push(async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      });
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${name}`;
      // A server that trusts local connections ignores it; one that checks has it already.
      url.password ||= "never-shown";
      const start = await started({
        PORT: String(await freePort()),
        PROXY_PORT: String(await freePort()),
        DATA_DIR: await dataFolder(),
        DATABASE_URL: url.href,
      });
      expect(start.output.stdout).toMatch(
        new RegExp(`^ +database +PostgreSQL at ${url.hostname}:${url.port || 5432}, database ${name} `, "m"),
      );
      expect(start.output.stdout + start.output.stderr).not.toContain(url.password);
      start.child.kill("SIGTERM");
      await start.ended;
    },
  );

  it(
    "reports a flag service that cannot start once, in its own words, and starts no proxy",
    STARTS,
    async () => {
      const dataDir = await dataFolder();
      // Another live process (this one) holds the data folder.
      await mkdir(dataDir, { recursive: true });
      await writeFile(join(dataDir, "signalbox.lock"), String(process.pid));
      const proxyPort = await freePort();
      const { code, stdout, stderr } = await npmStart({
        PORT: String(await freePort()),
        PROXY_PORT: String(proxyPort),
        DATA_DIR: dataDir,
      }).ended;
      expect(code).not.toBe(0);
      expect(linesOf(stderr)).toEqual([
        `signalbox-server: the data folder ${dataDir} is in use by process ${process.pid}: stop it, or set DATA_DIR to another folder`,
      ]);
      expect(stdout).not.toContain(RUNNING);
      // A proxy started against no service, or another one, would say its token was refused.
      expect(stdout + stderr).not.toContain("refused");
    },
  );
});
