import { createProxy, type SignalboxProxy } from "./app.js";
import type { Environment } from "./config.js";

/**
 * The standalone process: configured by environment variables only, listening on PORT or
 * PROXY_PORT (3000 by default) on every interface.
 */
export async function startStandalone(env: Environment): Promise<SignalboxProxy> {
  const proxy = await createProxy({}, env);
  const address = await proxy.listen();
  proxy.config.logger.info(`Signalbox proxy listening on ${address}${proxy.config.proxyBasePath}/proxy`);
  return proxy;
}
