import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { VARIABLES } from "../src/index.js";
import { shownDefault } from "../src/variables.js";
import { PROXY_VERSION } from "../src/version.js";
import { CLIENT_KEY, eventually, flagDocument } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

const cli = resolve(import.meta.dirname, "../src/cli.ts");
// The TypeScript loader by absolute address: the command runs from a folder of its own.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function emptyFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "signalbox-proxy-cli-"));
  cleanup.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

async function fakeUpstream(): Promise<FakeUpstream> {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  return upstream;
}

/** The command as an operator starts it, in `cwd`, with only the given variables (and PATH). */
function command(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, ["--conditions=signalbox-source", "--import", tsx, cli, ...args], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.stderr += chunk;
  });
  return { child, output };
}

/** Runs the command to its end: what it printed and its exit code. */
async function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const folder = cwd ?? (await emptyFolder());
  const { child, output } = command(args, env, folder);
  const [code] = await once(child, "exit");
  return { code: code as number, ...output, folder };
}

/** One line on stderr: what failed and what to change, without a stack trace. */
function expectOneLine(stderr: string, ...mentions: string[]) {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^signalbox-proxy: /);
  for (const mention of mentions) expect(lines[0]).toContain(mention);
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Base URL of the routes, e.g. http://127.0.0.1:1234/proxy. */
  url: string;
  /** Every line written to stdout so far, parsed: the command logs JSON when stdout is not a terminal. */
  log(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Starts the command with LOG_LEVEL=info and waits for the line that says where it listens. */
async function launch(env: Record<string, string>, cwd: string): Promise<Running> {
  const { child, output } = command([], { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }, cwd);
  const log = () =>
    output.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  cleanup.push(stop);
  const url = await eventually(() => {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${output.stderr}`);
    const listening = log()
      .map((entry) => /listening on (\S+)$/.exec(String(entry.msg))?.[1])
      .find(Boolean);
    if (!listening) throw new Error(`not listening yet: ${output.stdout}${output.stderr}`);
    return listening;
  }, 15_000);
  return { child, url, log, stop };
}

async function enabledFlags(url: string): Promise<{ status: number; names: string[] }> {
  const response = await fetch(`${url}?userId=1`, { headers: { authorization: CLIENT_KEY } });
  if (response.status !== 200) return { status: response.status, names: [] };
  const body = (await response.json()) as { toggles: Array<{ name: string }> };
  return { status: 200, names: body.toggles.map((toggle) => toggle.name) };
}

describe("--help and --version", () => {
  test("--help prints every variable with its default, meaning and @unleash/proxy name, and starts nothing", async () => {
    const result = await run(["--help"], { SERVICE_URL: "http://127.0.0.1:9/api" });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    for (const [name, spec] of Object.entries(VARIABLES)) {
      const line = result.stdout.split("\n").find((text) => text.trimStart().startsWith(`${name} `));
      expect(line, name).toBeDefined();
      expect(line).toContain(spec.meaning);
      expect(line).toContain(`(default: ${shownDefault(name as keyof typeof VARIABLES)})`);
      if ("alias" in spec) expect(line).toContain(`[${spec.alias}]`);
    }
    expect(await readdir(result.folder)).toEqual([]);
  });

  test("--version prints the version", async () => {
    const result = await run(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${PROXY_VERSION}\n`);
  });

  test("an unknown argument is refused in one line", async () => {
    const result = await run(["--port=3000"]);
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, "--port=3000", "--help");
  });
});

describe("start-up failures: one line naming what to change, exit code 1", () => {
  test("missing variables, each with its Signalbox and @unleash/proxy name", async () => {
    const result = await run([]);
    expect(result.code).toBe(1);
    expectOneLine(
      result.stderr,
      "SERVICE_URL (or UNLEASH_URL)",
      "SERVICE_API_TOKEN (or UNLEASH_API_TOKEN)",
      "SERVICE_PROXY_CLIENT_KEYS (or UNLEASH_PROXY_CLIENT_KEYS)",
    );
  });

  test("a port in use, found before anything is created or asked upstream", async () => {
    const upstream = await fakeUpstream();
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    cleanup.push(() => new Promise((done) => taken.close(done)));
    const { port } = taken.address() as AddressInfo;
    const result = await run([], {
      SERVICE_URL: upstream.url,
      SERVICE_API_TOKEN: "t",
      SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
      PORT: String(port),
      HOST: "127.0.0.1",
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, `port ${port} on 127.0.0.1 is already in use`, "PORT");
    expect(await readdir(result.folder)).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });

  test("a HOST that is not this machine's", async () => {
    const result = await run([], {
      SERVICE_URL: "http://127.0.0.1:9/api",
      SERVICE_API_TOKEN: "t",
      SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
      HOST: "192.0.2.1",
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "HOST 192.0.2.1 is not an address of this machine");
  });

  test("a custom strategies file that does not load, named by the variable the operator set", async () => {
    const folder = await emptyFolder();
    await writeFile(join(folder, "strategies.js"), "module.exports = [ { name: 'broken', ");
    const result = await run(
      [],
      {
        UNLEASH_URL: "http://127.0.0.1:9/api",
        UNLEASH_API_TOKEN: "t",
        UNLEASH_PROXY_CLIENT_KEYS: CLIENT_KEY,
        UNLEASH_CUSTOM_STRATEGIES_FILE: "./strategies.js",
      },
      folder,
    );
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "strategies.js", "customStrategies (UNLEASH_CUSTOM_STRATEGIES_FILE)");
  });

  test("a BACKUP_DIR that cannot be written", async () => {
    const folder = await emptyFolder();
    await writeFile(join(folder, "a-file"), "");
    const result = await run(
      [],
      {
        SERVICE_URL: "http://127.0.0.1:9/api",
        SERVICE_API_TOKEN: "t",
        SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
        BACKUP_DIR: "a-file/backups",
      },
      folder,
    );
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, "BACKUP_DIR", "a-file/backups", "BACKUP_DIR=off");
  });
});

test("restarted while its upstream is down, it serves the last configuration from ./data/proxy", async () => {
  const upstream = await fakeUpstream();
  const folder = await emptyFolder();
  const env = {
    SERVICE_URL: upstream.url,
    SERVICE_API_TOKEN: "t",
    SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
    SERVICE_FETCH_INTERVAL: "50",
  };
  const first = await launch(env, folder);
  await eventually(async () => expect((await enabledFlags(first.url)).names).toContain("simple"));
  await eventually(async () =>
    expect(await readdir(join(folder, "data", "proxy"))).toContainEqual(expect.stringMatching(/\.json$/)),
  );
  await first.stop();
  await upstream.close();

  const second = await launch(env, folder);
  const served = await eventually(async () => {
    const flags = await enabledFlags(second.url);
    expect(flags.status, JSON.stringify(second.log())).toBe(200);
    return flags.names;
  });
  expect(served).toContain("simple");
  expect(served).not.toContain("off");
  expect((await fetch(`${second.url}/health`)).status).toBe(200);
  const log = second.log();
  expect(log).toContainEqual(
    expect.objectContaining({
      level: "warn",
      msg: expect.stringMatching(/^Serving \d+ flags from the storage configuration until the upstream/),
    }),
  );
  for (const entry of log) {
    expect(Object.keys(entry)).toEqual(["level", "time", "name", "msg"]);
    expect(entry.name).toBe("signalbox-proxy");
  }
});
