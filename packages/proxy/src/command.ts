import { ConfigError } from "./config.js";
import { startStandalone } from "./standalone.js";
import { StartupError } from "./startup.js";
import { aliasOf, edgeNameOf, shownDefault, VARIABLES, type VariableName } from "./variables.js";
import { PROXY_VERSION } from "./version.js";

const usage = () => {
  const names = Object.keys(VARIABLES) as VariableName[];
  const width = Math.max(...names.map((name) => name.length));
  return [
    `signalbox-proxy ${PROXY_VERSION}: the Signalbox evaluation proxy, a drop-in for the Unleash Proxy and for Unleash Edge.`,
    "",
    "Usage: signalbox-proxy [--help | --version]",
    "",
    "Configured by environment variables; the @unleash/proxy name in brackets, then Unleash Edge's in braces, are read when the first is unset:",
    ...names.map((name) => {
      const alias = aliasOf(name);
      const edge = edgeNameOf(name);
      const meaning = VARIABLES[name].meaning;
      return `  ${name.padEnd(width)}  ${meaning} (default: ${shownDefault(name)})${alias ? ` [${alias}]` : ""}${edge ? ` {${edge}}` : ""}`;
    }),
    "",
  ].join("\n");
};

const [argument] = process.argv.slice(2);
if (argument === "--help" || argument === "-h") {
  process.stdout.write(usage());
} else if (argument === "--version" || argument === "-v") {
  process.stdout.write(`${PROXY_VERSION}\n`);
} else if (argument !== undefined) {
  process.stderr.write(`signalbox-proxy: unknown argument ${argument}; see signalbox-proxy --help\n`);
  process.exitCode = 2;
} else {
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
    // Tells that supervisor this process, and not another, now answers on the port.
    if (process.connected) process.send?.("listening");
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof StartupError;
    process.stderr.write(`signalbox-proxy: ${known ? (error as Error).message : (error as Error).stack}\n`);
    process.exit(1);
  }
}
