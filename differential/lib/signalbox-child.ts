// Child process: the Signalbox flag service, configured from the environment like the
// reference, in its own process so the two do not share an event loop.
import { loadConfig, startServer } from "@signalbox/server";

const server = await startServer(loadConfig());
process.send?.({ url: server.url.replace("0.0.0.0", "127.0.0.1") });
process.on("SIGTERM", async () => {
  await server.close();
  process.exit(0);
});
