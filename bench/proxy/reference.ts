// Child process: the reference proxy (@unleash/proxy) on a random port.
import { createApp } from "@unleash/proxy";

const app = createApp({
  unleashUrl: process.env.UPSTREAM_URL!,
  unleashApiToken: "bench-token",
  clientKeys: ["bench-key"],
  refreshInterval: 5000,
  logLevel: "error" as never,
});
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.send?.({ url: `http://127.0.0.1:${port}` });
});
process.on("SIGTERM", () => process.exit(0));
