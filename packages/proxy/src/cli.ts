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
  // Started by a supervisor over IPC (`npm start`): stop with it, even when it was killed outright.
  if (process.channel) process.once("disconnect", () => void stop());
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
