import type { ClientFeatures, Context, FeatureDefinition } from "@signalbox/engine";
import {
  createProxy,
  type Environment,
  type Logger,
  type ProxyOptions,
  type SignalboxProxy,
} from "../../src/index.js";
import type { FakeUpstream } from "./upstream.js";

const feature = (definition: Partial<FeatureDefinition> & { name: string }): FeatureDefinition => ({
  enabled: true,
  impressionData: false,
  strategies: [{ name: "default" }],
  variants: [],
  ...definition,
});

/** A small document covering what the proxy must get right: variants, payloads, constraints, custom strategies. */
export function flagDocument(): ClientFeatures {
  return {
    version: 2,
    features: [
      feature({ name: "simple", impressionData: true }),
      feature({ name: "off", enabled: false }),
      feature({
        name: "colors",
        variants: [
          {
            name: "blue",
            weight: 1000,
            stickiness: "default",
            payload: { type: "json", value: '{"hex":"#00f"}' },
          },
        ],
      }),
      feature({
        name: "greeting",
        variants: [{ name: "hello", weight: 1000, payload: { type: "string", value: "Hello!" } }],
      }),
      feature({ name: "named-disabled", variants: [{ name: "disabled", weight: 1000 }] }),
      feature({ name: "user-42", strategies: [{ name: "userWithId", parameters: { userIds: "42" } }] }),
      feature({
        name: "production-only",
        strategies: [
          {
            name: "default",
            constraints: [{ contextName: "environment", operator: "IN", values: ["production"] }],
          },
        ],
      }),
      feature({
        name: "africa",
        strategies: [
          { name: "default", constraints: [{ contextName: "region", operator: "IN", values: ["Africa"] }] },
        ],
      }),
      feature({
        name: "office-ip",
        strategies: [{ name: "remoteAddress", parameters: { IPs: "203.0.113.7" } }],
      }),
      feature({ name: "tenant-a", strategies: [{ name: "tenant", parameters: { tenants: "a" } }] }),
      feature({
        name: "half-of-visitors-twin",
        strategies: [
          { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default", groupId: "h" } },
        ],
      }),
      feature({
        name: "half-of-visitors",
        strategies: [
          { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default", groupId: "h" } },
        ],
        variants: [
          { name: "x", weight: 500, stickiness: "default" },
          { name: "y", weight: 500, stickiness: "default" },
        ],
      }),
      feature({
        name: "half-of-sessions",
        strategies: [
          { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "sessionId", groupId: "h" } },
        ],
      }),
      feature({
        name: "any-session",
        strategies: [{ name: "gradualRolloutSessionId", parameters: { percentage: "100", groupId: "s" } }],
      }),
    ],
    segments: [],
  };
}

export interface LogLine {
  level: keyof Logger;
  message: string;
}

/** A logger that keeps what it is told, for tests that assert on logs. */
export function recordingLogger(): Logger & {
  lines: LogLine[];
  has(level: keyof Logger, text: string): boolean;
} {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (message: string) => {
    lines.push({ level, message });
  };
  return {
    lines,
    has: (level, text) => lines.some((line) => line.level === level && line.message.includes(text)),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    fatal: at("fatal"),
  };
}

export const CLIENT_KEY = "client-key";

/** A tenant strategy: on when the context's tenant is one of the `tenants` parameter. */
export const tenantStrategy = {
  name: "tenant",
  isEnabled: (parameters: Record<string, string>, context: Context) =>
    (parameters.tenants ?? "").split(",").includes(String(context.properties?.tenant)),
};

/** A proxy on a fake upstream with short intervals and only the given environment variables. */
export async function startProxy(
  upstream: FakeUpstream,
  options: ProxyOptions = {},
  { wait = true, env = {} }: { wait?: boolean; env?: Environment } = {},
): Promise<SignalboxProxy> {
  const proxy = await createProxy(
    {
      serviceUrl: upstream.url,
      serviceApiToken: "upstream-token",
      clientKeys: [CLIENT_KEY],
      refreshInterval: 40,
      metricsInterval: 60,
      logger: recordingLogger(),
      ...options,
    },
    env,
  );
  if (wait) await proxy.ready;
  return proxy;
}

/** Re-runs an assertion until it passes, for effects that arrive asynchronously. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
