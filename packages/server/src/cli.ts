#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";
import { startServer } from "./server.js";

try {
  const config = loadConfig();
  const server = await startServer(config);
  const stop = async (signal: string) => {
    server.app.log.info(`${signal}: finishing in-flight requests, then stopping`);
    await server.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
