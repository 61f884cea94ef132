import { initialize, type Unleash } from "unleash-client";
import { CLIENT_TOKEN, serviceUrl } from "./service";

/**
 * The published Node SDK pointed at the service, as an application would run it, polling
 * every second so a change made in the browser reaches it quickly; with the development
 * client token unless given another.
 */
export async function nodeSdk(token = CLIENT_TOKEN): Promise<Unleash> {
  const client = initialize({
    url: `${serviceUrl()}/api`,
    appName: "ui-e2e-app",
    customHeaders: { Authorization: token },
    refreshInterval: 1000,
    disableMetrics: true,
  });
  await new Promise<void>((resolve, reject) => {
    client.once("synchronized", () => resolve());
    client.once("error", reject);
  });
  return client;
}
