import { loadConfig, type RunningServer, startServer } from "@signalbox/server";
import { UnleashClient } from "unleash-proxy-client";
import { expect } from "vitest";

export const ADMIN = "*:*.e2e-admin";
export const CLIENT = "*:development.e2e-client";
export const FRONTEND = "*:development.e2e-frontend";

/** A flag service on a random port with an in-memory database and the tokens above. */
export async function startService(): Promise<RunningServer> {
  return startServer(
    loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: "memory://",
      LOG_LEVEL: "silent",
      PASSWORD_HASH_COST: "test",
      INIT_ADMIN_API_TOKENS: ADMIN,
      INIT_CLIENT_API_TOKENS: CLIENT,
      INIT_FRONTEND_API_TOKENS: FRONTEND,
    }),
  );
}

/** Calls the admin API as a script would; throws with the answer when it is not 2xx. */
export function adminOf(service: RunningServer) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}/api/admin${path}`, {
      method,
      headers: {
        authorization: ADMIN,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

export type Admin = ReturnType<typeof adminOf>;

export const developmentOf = (flag: string) => `/projects/default/features/${flag}/environments/development`;

/**
 * `welcome-banner`: on for alice and bob, with a JSON-payload variant; `dark-mode`: created
 * but off. The same configuration for every browser path.
 */
export async function createBrowserFlags(admin: Admin): Promise<void> {
  await admin("POST", "/projects/default/features", { name: "welcome-banner" });
  await admin("POST", `${developmentOf("welcome-banner")}/strategies`, {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "welcome-banner" },
    constraints: [{ contextName: "userId", operator: "IN", values: ["alice", "bob"] }],
  });
  await admin("PUT", `${developmentOf("welcome-banner")}/variants`, [
    {
      name: "warm",
      weight: 1000,
      weightType: "variable",
      stickiness: "default",
      payload: { type: "json", value: '{"tone":"warm"}' },
    },
  ]);
  await admin("POST", `${developmentOf("welcome-banner")}/on`);
  await admin("POST", "/projects/default/features", { name: "dark-mode" });
}

/**
 * Runs the published browser SDK against `url` with `clientKey`, as alice, and checks what
 * a browser app would notice: flags, variants and payloads, a context change, a flag turned
 * on in the service while it runs, and its usage showing up as the flag's lastSeenAt.
 */
export async function browserSdkSeesTheService(admin: Admin, url: string, clientKey: string): Promise<void> {
  const client = new UnleashClient({
    url,
    clientKey,
    appName: "e2e-web",
    refreshInterval: 1,
    metricsInterval: 1,
    context: { userId: "alice" },
  });
  try {
    await new Promise<void>((resolve) => {
      client.on("ready", () => resolve());
      void client.start();
    });
    expect(client.isEnabled("welcome-banner")).toBe(true);
    expect(client.getVariant("welcome-banner")).toMatchObject({
      name: "warm",
      enabled: true,
      payload: { type: "json", value: '{"tone":"warm"}' },
    });
    expect(client.isEnabled("dark-mode")).toBe(false);

    await client.updateContext({ userId: "carol" });
    expect(client.isEnabled("welcome-banner")).toBe(false);
    await client.updateContext({ userId: "alice" });

    await admin("POST", `${developmentOf("dark-mode")}/strategies`, { name: "default" });
    await admin("POST", `${developmentOf("dark-mode")}/on`);
    await expect.poll(() => client.isEnabled("dark-mode"), { timeout: 10_000, interval: 100 }).toBe(true);

    await expect
      .poll(async () => (await admin("GET", "/projects/default/features/welcome-banner")).environments, {
        timeout: 15_000,
        interval: 250,
      })
      .toContainEqual(expect.objectContaining({ name: "development", lastSeenAt: expect.any(String) }));
  } finally {
    client.stop();
  }
}
