#!/usr/bin/env node
import { createRequire } from "node:module";
import { ConfigError, loadConfig, VARIABLES } from "./config.js";
import { openApiDocument } from "./openapi-document.js";
import { startServer } from "./server.js";
import { StartupError } from "./startup.js";

// src/ and dist/ both sit one level below package.json.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const usage = () => {
  const width = Math.max(...VARIABLES.map((variable) => variable.name.length));
  return [
    `signalbox-server ${version}: the Signalbox flag service.`,
    "",
    "Usage: signalbox-server [--help | --version | openapi]",
    "",
    "  openapi    print the API's OpenAPI document (JSON) and exit, touching no data",
    "",
    "Configured by environment variables:",
    ...VARIABLES.map(
      (variable) => `  ${variable.name.padEnd(width)}  ${variable.meaning} (default: ${variable.fallback})`,
    ),
    "",
  ].join("\n");
};

const [argument] = process.argv.slice(2);
if (argument === "--help" || argument === "-h") {
  process.stdout.write(usage());
} else if (argument === "--version" || argument === "-v") {
  process.stdout.write(`${version}\n`);
} else if (argument === "openapi") {
  process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
} else if (argument !== undefined) {
  process.stderr.write(`signalbox-server: unknown argument ${argument}; see signalbox-server --help\n`);
  process.exitCode = 2;
} else {
  try {
    const server = await startServer(loadConfig());
    const stop = async (reason: string) => {
      server.app.log.info(`${reason}: finishing in-flight requests, then stopping`);
      await server.close();
      process.exit(0);
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
    // Started by a supervisor over IPC (`npm start`): stop with it, even when it was killed outright.
    if (process.channel) process.once("disconnect", () => void stop("supervisor gone"));
    // Tells that supervisor this process, and not another, now answers on the port.
    if (process.connected) process.send?.("listening");
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof StartupError;
    process.stderr.write(`signalbox-server: ${known ? (error as Error).message : (error as Error).stack}\n`);
    process.exit(1);
  }
}
