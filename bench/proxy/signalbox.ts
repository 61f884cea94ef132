// Child process: the Signalbox proxy on a random port.
import { createProxy } from "@signalbox/proxy";

const proxy = await createProxy({
  serviceUrl: process.env.UPSTREAM_URL!,
  serviceApiToken: "bench-token",
  clientKeys: ["bench-key"],
  refreshInterval: 5000,
  logLevel: "error",
});
const address = await proxy.listen({ port: 0, host: "127.0.0.1" });
process.send?.({ url: address });
process.on("SIGTERM", async () => {
  await proxy.close();
  process.exit(0);
});
