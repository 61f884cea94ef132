#!/usr/bin/env node
import { ConfigError } from "./config.js";
import { startStandalone } from "./standalone.js";

try {
  const proxy = await startStandalone(process.env);
  const stop = async () => {
    await proxy.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
