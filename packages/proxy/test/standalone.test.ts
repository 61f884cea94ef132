import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { afterEach, expect, test, vi } from "vitest";
import { ConfigError, type SignalboxProxy } from "../src/index.js";
import { startStandalone } from "../src/standalone.js";
import { CLIENT_KEY, eventually, flagDocument } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
  vi.restoreAllMocks();
});

/** The command's code in this process; the backup, on by default, would land in the repository. */
async function standalone(env: Record<string, string>): Promise<SignalboxProxy> {
  const proxy = await startStandalone({ PORT: "0", BACKUP_DIR: "off", ...env });
  cleanup.push(() => proxy.close());
  return proxy;
}

const portOf = (proxy: SignalboxProxy) => {
  const address = proxy.app.server.address();
  return typeof address === "object" && address ? address.port : 0;
};

test("refuses to start without the required variables, naming each", async () => {
  const error = await startStandalone({}).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  for (const variable of ["SERVICE_URL", "SERVICE_API_TOKEN", "SERVICE_PROXY_CLIENT_KEYS"]) {
    expect((error as Error).message).toContain(variable);
  }
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test.each(["PORT", "PROXY_PORT"])("listens on %s", async (variable) => {
  const port = await freePort();
  const proxy = await standalone({
    PORT: "",
    [variable]: String(port),
    SERVICE_URL: "http://127.0.0.1:9/api",
    SERVICE_API_TOKEN: "x",
    SERVICE_PROXY_CLIENT_KEYS: "k",
    LOG_LEVEL: "fatal",
  });
  expect(portOf(proxy)).toBe(port);
});

test("listens on HOST: :: takes IPv6 and IPv4 callers, 127.0.0.1 only local IPv4 ones", async () => {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  const env = {
    SERVICE_URL: upstream.url,
    SERVICE_API_TOKEN: "x",
    SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
    LOG_LEVEL: "fatal",
  };
  const health = (host: string, port: number) =>
    fetch(`http://${host}:${port}/proxy/health`).then(
      (response) => response.status,
      () => "refused",
    );
  const everywhere = await standalone({ ...env, HOST: "::" });
  await everywhere.ready;
  expect(await health("[::1]", portOf(everywhere))).toBe(200);
  expect(await health("127.0.0.1", portOf(everywhere))).toBe(200);
  const local = await standalone({ ...env, HOST: "127.0.0.1" });
  await local.ready;
  expect(await health("127.0.0.1", portOf(local))).toBe(200);
  expect(await health("[::1]", portOf(local))).toBe("refused");
});

test("answers 503 until the upstream answers", async () => {
  const proxy = await standalone({
    SERVICE_URL: "http://127.0.0.1:9/api",
    SERVICE_API_TOKEN: "x",
    SERVICE_PROXY_CLIENT_KEYS: "k",
    LOG_LEVEL: "fatal",
  });
  const response = await fetch(`http://127.0.0.1:${portOf(proxy)}/proxy`, {
    headers: { authorization: "k" },
  });
  expect(response.status).toBe(503);
  expect(await response.text()).toMatch(/not ready/);
});

test("is configured by the environment alone: base path, keys, logging", async () => {
  const upstream = await FakeUpstream.start(flagDocument());
  cleanup.push(() => upstream.close());
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const proxy = await standalone({
    SERVICE_URL: upstream.url,
    SERVICE_API_TOKEN: "x",
    SERVICE_PROXY_CLIENT_KEYS: CLIENT_KEY,
    PROXY_BASE_PATH: "/flags",
    SERVICE_FETCH_INTERVAL: "50",
    LOG_LEVEL: "info",
    JSON_LOGGER: "true",
  });
  const base = `http://127.0.0.1:${portOf(proxy)}/flags/proxy`;
  await eventually(async () => {
    const response = await fetch(base, { headers: { authorization: CLIENT_KEY } });
    expect(response.status).toBe(200);
  });
  const entries = lines.filter((line) => line.includes("signalbox-proxy")).map((line) => JSON.parse(line));
  expect(entries.some((entry) => entry.level === "info" && entry.msg.includes("listening"))).toBe(true);
});

test("logs nothing below LOG_LEVEL, in plain text with LOG_FORMAT=pretty", async () => {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  await standalone({
    SERVICE_URL: "http://127.0.0.1:9/api",
    SERVICE_API_TOKEN: "x",
    SERVICE_PROXY_CLIENT_KEYS: "k",
    LOG_LEVEL: "warn",
    LOG_FORMAT: "pretty",
  });
  await eventually(() => expect(lines.some((line) => line.includes(" WARN Cannot fetch flags"))).toBe(true));
  expect(lines.some((line) => line.includes("listening"))).toBe(false);
});
