/**
 * The flag service as its command starts it (configured by the same environment variables,
 * from the build), with one outbox consumer that posts each batch it is handed to
 * OUTBOX_RECEIVER and acknowledges it when the receiver answers 2xx. test/outbox.test.ts runs
 * it, kills it and starts it again; it says it is ready over IPC once the consumer is registered.
 */
import { loadConfig, startServer } from "../dist/index.js";

const receiver = process.env.OUTBOX_RECEIVER;
const server = await startServer(loadConfig());
await server.services.events.outbox.register({
  name: "receiver",
  batchSize: 4,
  handle: async (events, signal) => {
    const response = await fetch(receiver, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pid: process.pid, ids: events.map((event) => event.id) }),
      signal,
    });
    if (!response.ok) throw new Error(`the receiver answered ${response.status}`);
  },
});
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
process.send({ url: server.url });
