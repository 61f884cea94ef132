import { resolve } from "node:path";

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL when set; the embedded PGlite in `dataDir` otherwise. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** The safety net behind change notifications: how often to read the revision, in ms. */
  revisionPollMs: number;
  /** Origins allowed to call the frontend API from a browser. */
  frontendCorsOrigins: string[];
  initTokens: { admin: string[]; client: string[]; frontend: string[] };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

const list = (raw: string | undefined) =>
  (raw ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Reads the configuration from environment variables; every error names its variable. */
export function loadConfig(env: Env = process.env): Config {
  const errors: string[] = [];
  const attempt = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      errors.push((error as Error).message);
      return fallback;
    }
  };

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    errors.push(`DATABASE_URL must start with postgres:// or postgresql://`);
  }
  const logLevel = (env.LOG_LEVEL ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    errors.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  }
  const config: Config = {
    port: attempt(() => integer(env, "PORT", 4242, 0, 65535), 4242),
    host: env.HOST || "0.0.0.0",
    databaseUrl,
    // `memory://` keeps the embedded database in memory only, for throwaway instances.
    dataDir: env.DATA_DIR?.startsWith("memory://") ? env.DATA_DIR : resolve(env.DATA_DIR || "data"),
    logLevel: logLevel as Config["logLevel"],
    bodyLimit: attempt(() => integer(env, "BODY_LIMIT", 100 * 1024, 1024, 100 * 1024 * 1024), 100 * 1024),
    revisionPollMs: attempt(() => integer(env, "REVISION_POLL_MS", 5000, 100, 3_600_000), 5000),
    frontendCorsOrigins: env.FRONTEND_CORS_ORIGINS ? list(env.FRONTEND_CORS_ORIGINS) : ["*"],
    initTokens: {
      admin: list(env.INIT_ADMIN_API_TOKENS),
      client: [...list(env.INIT_CLIENT_API_TOKENS), ...list(env.INIT_BACKEND_API_TOKENS)],
      frontend: list(env.INIT_FRONTEND_API_TOKENS),
    },
  };
  for (const [name, tokens] of Object.entries({
    INIT_ADMIN_API_TOKENS: config.initTokens.admin,
    INIT_CLIENT_API_TOKENS: config.initTokens.client,
    INIT_FRONTEND_API_TOKENS: config.initTokens.frontend,
  })) {
    // Which entry, never its text: the value is a secret, and start-up errors end up in logs.
    tokens.forEach((token, index) => {
      if (!/^[^:]+:[^.]+\..+$/.test(token))
        errors.push(`${name}: entry ${index + 1} must look like <project>:<environment>.<secret>`);
    });
  }
  if (errors.length > 0) throw new ConfigError(`invalid configuration:\n  ${errors.join("\n  ")}`);
  return config;
}

/** A configuration for tests and embedding: defaults, overridden by what is given. */
export const defaultConfig = (overrides: Partial<Config> = {}): Config => ({
  ...loadConfig({}),
  ...overrides,
});
