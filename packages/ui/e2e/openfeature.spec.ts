import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import { dirname, join } from "node:path";
import { UnleashClient } from "unleash-proxy-client";
import { admin, CLIENT_TOKEN, expect, serviceUrl, test } from "./support/service";

// A browser app on OpenFeature alone: the published web SDK and its generic OFREP provider,
// loaded by a page of another origin from the packages as npm installed them, evaluate the
// proxy's flags and follow a change made in the service through the proxy's change stream.

const KEY = "ui-e2e-openfeature-key";
const development = (flag: string) => `/projects/default/features/${flag}/environments/development`;

/** The folder of an installed package, found from the file Node resolves for it from `from`. */
function packageRoot(name: string, from: string): string {
  let folder = dirname(createRequire(from).resolve(name));
  while (!existsSync(join(folder, "package.json")) || !folder.includes(name)) folder = dirname(folder);
  return folder;
}

/** The ES modules the page imports, by the bare names they import each other by. */
function modules(): Record<string, string> {
  const webSdk = packageRoot("@openfeature/web-sdk", import.meta.url);
  const provider = packageRoot("@openfeature/ofrep-web-provider", import.meta.url);
  return {
    "@openfeature/web-sdk": join(webSdk, "dist/esm/index.js"),
    "@openfeature/core": join(
      packageRoot("@openfeature/core", join(webSdk, "package.json")),
      "dist/esm/index.js",
    ),
    "@openfeature/ofrep-web-provider": join(provider, "index.esm.js"),
    "@openfeature/ofrep-core": join(
      packageRoot("@openfeature/ofrep-core", join(provider, "package.json")),
      "index.esm.js",
    ),
  };
}

function page(proxyUrl: string, names: string[]): string {
  const imports = Object.fromEntries(names.map((name) => [name, `/modules/${name}.js`]));
  return `<!doctype html>
<html lang="en">
<head><title>Shop</title><script type="importmap">${JSON.stringify({ imports })}</script></head>
<body>
<p>Banner: <output aria-label="banner"></output></p>
<p>Greeting: <output aria-label="greeting"></output></p>
<script type="module">
import { OpenFeature, ProviderEvents } from "@openfeature/web-sdk";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
const client = OpenFeature.getClient();
const render = () => {
  document.querySelector('[aria-label="banner"]').textContent = String(client.getBooleanValue("of-banner", false));
  document.querySelector('[aria-label="greeting"]').textContent = client.getStringValue("of-greeting", "none");
};
await OpenFeature.setContext({ targetingKey: "alice", plan: "pro" });
// Polling every ten minutes: a change seen sooner came through the change stream.
await OpenFeature.setProviderAndWait(
  new OFREPWebProvider({ baseUrl: ${JSON.stringify(proxyUrl)}, headers: [["Authorization", ${JSON.stringify(KEY)}]], pollInterval: 600000 }),
);
render();
client.addHandler(ProviderEvents.ConfigurationChanged, render);
</script>
</body>
</html>`;
}

let proxy: ChildProcess;
let proxyUrl: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createNetServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
let site: Server;
let siteUrl: string;

test.beforeAll(async () => {
  await admin("POST", "/projects/default/features", { name: "of-banner" });
  await admin("POST", `${development("of-banner")}/strategies`, { name: "default" });
  await admin("POST", `${development("of-banner")}/on`);
  await admin("POST", "/projects/default/features", { name: "of-greeting" });
  await admin("POST", `${development("of-greeting")}/strategies`, {
    name: "default",
    constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
    variants: [
      {
        name: "hello",
        weight: 1000,
        weightType: "variable",
        stickiness: "default",
        payload: { type: "string", value: "Hello, pro" },
      },
    ],
  });
  await admin("POST", `${development("of-greeting")}/on`);

  // The proxy as its users run it: its own command, configured by its environment.
  const port = await freePort();
  proxyUrl = `http://127.0.0.1:${port}`;
  proxy = spawn(process.execPath, [createRequire(import.meta.url).resolve("@signalbox/proxy/cli")], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      SERVICE_URL: `${serviceUrl()}/api`,
      SERVICE_API_TOKEN: CLIENT_TOKEN,
      SERVICE_PROXY_CLIENT_KEYS: KEY,
      BACKUP_DIR: "off",
      LOG_LEVEL: "error",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await expect
    .poll(
      () =>
        fetch(`${proxyUrl}/proxy/health`).then(
          (response) => response.status,
          () => 0,
        ),
      { timeout: 30_000 },
    )
    .toBe(200);

  const files = modules();
  site = createServer(async (request, response) => {
    const name = request.url?.match(/^\/modules\/(.+)\.js$/)?.[1];
    if (name && files[name]) {
      response.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(files[name]));
    } else if (request.url === "/") {
      response.writeHead(200, { "content-type": "text/html" }).end(page(proxyUrl, Object.keys(files)));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});

test.afterAll(async () => {
  if (proxy && proxy.exitCode === null) {
    proxy.kill("SIGTERM");
    await new Promise((done) => proxy.once("exit", done));
  }
  await new Promise((resolve) => site?.close(resolve));
});

test("a page on OpenFeature's web SDK shows the proxy's flags as the Unleash browser SDK does, and a change without a reload", async ({
  page,
}) => {
  await page.goto(siteUrl);
  const banner = page.getByRole("status", { name: "banner" });
  const greeting = page.getByRole("status", { name: "greeting" });
  await expect(banner).toHaveText("true");
  await expect(greeting).toHaveText("Hello, pro");

  // The same context through the proxy's own browser API, as unleash-proxy-client sees it.
  const unleash = new UnleashClient({
    url: `${proxyUrl}/proxy`,
    clientKey: KEY,
    appName: "ui-e2e-web",
    context: { userId: "alice", properties: { plan: "pro" } },
    refreshInterval: 0,
    metricsInterval: 0,
    disableMetrics: true,
  });
  await new Promise<void>((resolve) => {
    unleash.on("ready", () => resolve());
    void unleash.start();
  });
  expect(String(unleash.isEnabled("of-banner"))).toBe(await banner.textContent());
  expect(unleash.getVariant("of-greeting").payload?.value).toBe(await greeting.textContent());
  unleash.stop();

  // Marked, to tell that the page was not loaded again.
  await page.evaluate(() => Object.assign(window, { unchanged: true }));
  await admin("POST", `${development("of-banner")}/off`);
  await expect(banner).toHaveText("false");
  expect(await page.evaluate(() => (window as unknown as { unchanged?: boolean }).unchanged)).toBe(true);
});
