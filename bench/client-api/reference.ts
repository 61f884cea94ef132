// Child process: the reference service (unleash-server) on the given PostgreSQL database.
import { loadReference } from "../../reference/load.js";

interface UnleashServer {
  start(options: { logLevel: string }): Promise<{ stop(): Promise<void> }>;
}

const { start } = await loadReference<UnleashServer>("unleash-server");
const unleash = await start({ logLevel: "error" });
process.send?.({ url: `http://127.0.0.1:${process.env.PORT}` });
process.on("SIGTERM", async () => {
  await unleash.stop();
  process.exit(0);
});
