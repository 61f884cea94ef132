// Child process: the reference proxy (@unleash/proxy) on a random port.
import type { Server } from "node:http";
import { loadReference } from "../../reference/load.js";

interface UnleashProxy {
  createApp(options: Record<string, unknown>): {
    listen(port: number, host: string, ready: () => void): Server;
  };
}

const { createApp } = await loadReference<UnleashProxy>("@unleash/proxy");
const app = createApp({
  unleashUrl: process.env.UPSTREAM_URL!,
  unleashApiToken: "bench-token",
  clientKeys: ["bench-key"],
  refreshInterval: 5000,
  logLevel: "error",
});
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.send?.({ url: `http://127.0.0.1:${port}` });
});
process.on("SIGTERM", () => process.exit(0));
