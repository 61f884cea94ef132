// Child process: the reference service (unleash-server) on the given PostgreSQL database.
import { loadReference } from "../../reference/load.js";

interface UnleashServer {
  start(options: { logLevel: string }): Promise<{ stop(): Promise<void> }>;
}

// unleash-server 8 answers 429 to more than 20 000 SDK requests a minute per token; Signalbox
// has no such limit. Raised out of reach, so that both rows measure answering, not refusing.
process.env.SDK_API_RATE_LIMIT_PER_MINUTE ??= "1000000000";
process.env.TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE ??= "1000000000";

const { start } = await loadReference<UnleashServer>("unleash-server");
const unleash = await start({ logLevel: "error" });
process.send?.({ url: `http://127.0.0.1:${process.env.PORT}` });
process.on("SIGTERM", async () => {
  await unleash.stop();
  process.exit(0);
});
