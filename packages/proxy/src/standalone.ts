import { proxyFor, type SignalboxProxy } from "./app.js";
import { type Environment, resolveConfig } from "./config.js";
import { ensurePortFree, listenProblem, StartupError } from "./startup.js";

/**
 * The standalone process: configured by environment variables only, listening on PORT (or
 * PROXY_PORT) at HOST. The address is checked before anything else happens, and a failure
 * is a ConfigError or StartupError whose message is one line.
 */
export async function startStandalone(env: Environment): Promise<SignalboxProxy> {
  const config = await resolveConfig({}, env, { standalone: true });
  await ensurePortFree(config.port, config.host);
  const proxy = await proxyFor(config);
  try {
    const address = await proxy.listen();
    config.logger.info(`Signalbox proxy listening on ${address}${config.proxyBasePath}/proxy`);
  } catch (error) {
    await proxy.close();
    // Taken between the check and the listen, by a process started at the same moment.
    throw error instanceof StartupError
      ? error
      : listenProblem(error as NodeJS.ErrnoException, config.port, config.host);
  }
  return proxy;
}
