// Child process: the reference service (unleash-server) on the given PostgreSQL database.
const { start } = await import("unleash-server");
const unleash = await start({ logLevel: "error" as never });
process.send?.({ url: `http://127.0.0.1:${process.env.PORT}` });
process.on("SIGTERM", async () => {
  await unleash.stop();
  process.exit(0);
});
