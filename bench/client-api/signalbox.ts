// Child process: the Signalbox flag service, configured from the environment like the reference.
import { loadConfig, startServer } from "@signalbox/server";

const server = await startServer(loadConfig());
process.send?.({ url: `http://127.0.0.1:${process.env.PORT}` });
process.on("SIGTERM", async () => {
  await server.close();
  process.exit(0);
});
