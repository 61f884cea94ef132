import { createRequire } from "node:module";
import { isIP } from "node:net";
import { dirname, join, resolve } from "node:path";
import type { LogFormat } from "./logging.js";

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL when set; the embedded PGlite in `dataDir` otherwise. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  logFormat: LogFormat;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** The safety net behind change notifications: how often to read the revision, in ms. */
  revisionPollMs: number;
  /** Origins allowed to call the frontend API from a browser. */
  frontendCorsOrigins: string[];
  /**
   * Which proxies to believe about the client's address, protocol and host (X-Forwarded-*):
   * none, all, or those at these addresses. Sign-in links and secure cookies rely on it.
   */
  trustProxy: boolean | string;
  initTokens: { admin: string[]; client: string[]; frontend: string[] };
  /** How long a login lasts, in hours. */
  sessionTtlHours: number;
  /** Failed logins for one username (or email) from one address in a minute before they must wait. */
  loginFailuresPerMinute: number;
  /** scrypt's cost for new password hashes, as log2 N (see PASSWORD_HASH_COST). */
  passwordHashCost: number;
  /** The first admin, created when there are no people; without it `admin` gets a random password. */
  defaultAdmin: { username: string; password: string } | undefined;
  /** The built web UI served at `/`; undefined serves none (the API works without it). */
  uiDir: string | undefined;
  /** Where addons may deliver, and how hard they try. */
  integrations: IntegrationSettings;
  /** SDK streams on `/api/client/streaming`. */
  streaming: StreamSettings;
  /** Release plans' progressions and safeguards. */
  releases: ReleaseSettings;
  /** What is kept of the impact metrics SDKs report. */
  impactMetrics: ImpactMetricsSettings;
}

export interface ImpactMetricsSettings {
  /** Metrics (a name and type) kept; a new one past it is refused. */
  maxMetrics: number;
  /** Series (label sets) kept per metric; a new one past it is refused. */
  maxSeriesPerMetric: number;
  /** How long points are kept, in ms. */
  retentionMs: number;
  /** The time one stored point covers, in seconds: what arrives within it is added up (a gauge's last value kept). */
  resolutionSeconds: number;
}

export interface ReleaseSettings {
  /** How long a transition condition's minute lasts, in ms (shorter only in tests). */
  minuteMs: number;
  /** How often every safeguard is looked at, in ms. */
  evaluationMs: number;
  /** The window a safeguard's metric is aggregated over at each look, in ms. */
  windowMs: number;
}

export interface IntegrationSettings {
  /** Destinations on private, loopback, link-local or reserved addresses are allowed. */
  allowPrivateUrl: boolean;
  /** Hosts allowed whatever their addresses. */
  allowList: string[];
  /** How long one delivery attempt may take, in ms. */
  timeoutMs: number;
  /** The pause after a delivery's first failed attempt, doubled after each further one. */
  retryMs: number;
  /** How long a delivery is retried before it is marked failed, in ms. */
  giveUpMs: number;
  /** The Slack Web API, which the Slack App addon posts to. */
  slackApiUrl: string;
}

export interface StreamSettings {
  /** Open streams one instance holds; past it, 429, which sends SDKs back to polling. */
  maxStreams: number;
  /** How often a comment line keeps idle connections (and the proxies between) open. */
  keepAliveMs: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

/**
 * scrypt's cost for new password hashes, as log2 N. 14 is OWASP's setting for the block size
 * and parallelism domains/users/passwords.ts uses; each step up doubles a hash's time and
 * memory, up to 128 MiB at 17, the most passwords.ts lets scrypt take. `test` is the lowest,
 * for test suites, whose hashing would otherwise be most of their time: anyone who reads
 * such a hash can find its password.
 */
export const PASSWORD_HASH_COST = { default: 14, max: 17, test: 1 } as const;

/** Every variable the service reads, for `--help`. */
export const VARIABLES: readonly { name: string; fallback: string; meaning: string }[] = [
  { name: "PORT", fallback: "4242", meaning: "listening port" },
  { name: "HOST", fallback: "0.0.0.0", meaning: "listening address (:: for every IPv6 and IPv4 address)" },
  {
    name: "DATABASE_URL",
    fallback: "none",
    meaning: "postgres://… to use PostgreSQL; without it the embedded database",
  },
  {
    name: "DATA_DIR",
    fallback: "./data",
    meaning: "the embedded database's folder; memory:// keeps nothing",
  },
  { name: "LOG_LEVEL", fallback: "info", meaning: "fatal, error, warn, info, debug, trace or silent" },
  { name: "LOG_FORMAT", fallback: "json, or pretty on a terminal", meaning: "json or pretty" },
  { name: "BODY_LIMIT", fallback: "102400", meaning: "largest request body in bytes" },
  {
    name: "REVISION_POLL_MS",
    fallback: "5000",
    meaning: "with PostgreSQL, how often to re-read the revision in case a change notice was lost",
  },
  {
    name: "FRONTEND_CORS_ORIGINS",
    fallback: "*",
    meaning: "comma-separated origins allowed to call /api/frontend",
  },
  {
    name: "TRUST_PROXY",
    fallback: "false",
    meaning: "believe X-Forwarded-* from proxies: true (any), or those at comma-separated addresses/CIDRs",
  },
  {
    name: "INIT_ADMIN_API_TOKENS",
    fallback: "none",
    meaning: "admin tokens (*:*.<secret>) created at start when missing",
  },
  {
    name: "INIT_CLIENT_API_TOKENS",
    fallback: "none",
    meaning: "client tokens (<project>:<environment>.<secret>); alias INIT_BACKEND_API_TOKENS",
  },
  {
    name: "INIT_FRONTEND_API_TOKENS",
    fallback: "none",
    meaning: "frontend tokens (<project>:<environment>.<secret>)",
  },
  {
    name: "UNLEASH_DEFAULT_ADMIN_USERNAME",
    fallback: "admin",
    meaning: "the first admin's username, created when there are no users (with the password below)",
  },
  {
    name: "UNLEASH_DEFAULT_ADMIN_PASSWORD",
    fallback: "random, printed once",
    meaning: "the first admin's password (with the username above)",
  },
  {
    name: "STREAMING_MAX_CONNECTIONS",
    fallback: "10000",
    meaning: "SDK streams one instance holds; past it SDKs are told to poll (429)",
  },
  { name: "SESSION_TTL_HOURS", fallback: "48", meaning: "how long a login lasts" },
  {
    name: "PASSWORD_HASH_COST",
    fallback: String(PASSWORD_HASH_COST.default),
    meaning: `scrypt cost of new password hashes as log2 N, up to ${PASSWORD_HASH_COST.max} (each step doubles time and memory); test: the lowest, for test suites only`,
  },
  {
    name: "UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION",
    fallback: "false",
    meaning: "true lets addons deliver to private, loopback, link-local and reserved addresses",
  },
  {
    name: "UNLEASH_ALLOW_LIST_INTEGRATION",
    fallback: "none",
    meaning: "comma-separated hosts addons may deliver to whatever their addresses",
  },
  {
    name: "INTEGRATION_TIMEOUT_MS",
    fallback: "10000",
    meaning: "how long one addon delivery attempt may take",
  },
  {
    name: "INTEGRATION_RETRY_MS",
    fallback: "1000",
    meaning: "the pause after an addon delivery's first failed attempt, doubled after each further one",
  },
  {
    name: "INTEGRATION_GIVE_UP_MS",
    fallback: "60000",
    meaning: "how long an addon delivery is retried before it is marked failed",
  },
  {
    name: "INTEGRATION_SLACK_API_URL",
    fallback: "https://slack.com/api",
    meaning: "the Slack Web API the Slack App addon posts to (a proxy's, say)",
  },
  {
    name: "IMPACT_METRICS_MAX_METRICS",
    fallback: "100",
    meaning: "impact metrics (name and type) kept; SDKs' new ones past it are refused",
  },
  {
    name: "IMPACT_METRICS_MAX_SERIES_PER_METRIC",
    fallback: "1000",
    meaning: "label combinations kept per impact metric; new ones past it are refused",
  },
  {
    name: "IMPACT_METRICS_RETENTION_HOURS",
    fallback: "168",
    meaning: "how long impact metric points are kept",
  },
  {
    name: "IMPACT_METRICS_RESOLUTION_SECONDS",
    fallback: "60",
    meaning: "the time each stored impact metric point covers",
  },
  {
    name: "SAFEGUARD_INTERVAL_MS",
    fallback: "60000",
    meaning: "how often each instance looks at every safeguard of a release",
  },
  {
    name: "SAFEGUARD_WINDOW_MS",
    fallback: "300000",
    meaning: "the window a safeguard's impact metric is aggregated over",
  },
  {
    name: "RELEASE_PLAN_MINUTE_MS",
    fallback: "60000",
    meaning: "how long a release plan's transition minute lasts (shortened by tests only)",
  },
  {
    name: "SIMPLE_LOGIN_LIMIT_PER_MINUTE",
    fallback: "10",
    meaning: "failed logins for one username (or email) from one address in a minute before they must wait",
  },
];

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

// Never below the default but by name, so that no typo weakens the passwords of a real service.
function passwordHashCost(env: Env): number {
  const { default: fallback, max, test } = PASSWORD_HASH_COST;
  return env.PASSWORD_HASH_COST === "test"
    ? test
    : integer(env, "PASSWORD_HASH_COST", fallback, fallback, max);
}

// proxy-addr's names for address ranges, beside addresses and CIDRs.
const PROXY_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

function trustProxy(raw: string | undefined): boolean | string {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  for (const entry of list(value)) {
    const [address = "", bits, ...rest] = entry.split("/");
    const prefix = bits === undefined || /^\d{1,3}$/.test(bits);
    if (!PROXY_RANGES.has(entry) && (!isIP(address) || !prefix || rest.length > 0)) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, or comma-separated addresses or CIDRs, got "${raw}"`,
      );
    }
  }
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

// Both or neither, as the reference: half an account would be a surprise at the login page.
function defaultAdmin(env: Env): Config["defaultAdmin"] {
  const username = env.UNLEASH_DEFAULT_ADMIN_USERNAME || undefined;
  const password = env.UNLEASH_DEFAULT_ADMIN_PASSWORD || undefined;
  if (username && password) return { username, password };
  if (username || password) {
    throw new ConfigError(
      "UNLEASH_DEFAULT_ADMIN_USERNAME and UNLEASH_DEFAULT_ADMIN_PASSWORD must be set together, or neither",
    );
  }
  return undefined;
}

// The UI ships as the files of a package beside this one; a checkout that has not built it
// yet serves the API alone.
function uiDir(raw: string | undefined): string | undefined {
  if (raw === "none") return undefined;
  if (raw) return resolve(raw);
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@signalbox/ui/package.json")), "dist");
  } catch {
    return undefined;
  }
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
  const logFormat = (env.LOG_FORMAT || (process.stdout.isTTY ? "pretty" : "json")).toLowerCase();
  if (logFormat !== "json" && logFormat !== "pretty") {
    errors.push(`LOG_FORMAT must be json or pretty, got "${env.LOG_FORMAT}"`);
  }
  const config: Config = {
    port: attempt(() => integer(env, "PORT", 4242, 0, 65535), 4242),
    host: env.HOST || "0.0.0.0",
    databaseUrl,
    // `memory://` keeps the embedded database in memory only, for throwaway instances.
    dataDir: env.DATA_DIR?.startsWith("memory://") ? env.DATA_DIR : resolve(env.DATA_DIR || "data"),
    logLevel: logLevel as Config["logLevel"],
    logFormat: logFormat as LogFormat,
    bodyLimit: attempt(() => integer(env, "BODY_LIMIT", 100 * 1024, 1024, 100 * 1024 * 1024), 100 * 1024),
    revisionPollMs: attempt(() => integer(env, "REVISION_POLL_MS", 5000, 100, 3_600_000), 5000),
    frontendCorsOrigins: env.FRONTEND_CORS_ORIGINS ? list(env.FRONTEND_CORS_ORIGINS) : ["*"],
    trustProxy: attempt(() => trustProxy(env.TRUST_PROXY), false),
    initTokens: {
      admin: list(env.INIT_ADMIN_API_TOKENS),
      client: [...list(env.INIT_CLIENT_API_TOKENS), ...list(env.INIT_BACKEND_API_TOKENS)],
      frontend: list(env.INIT_FRONTEND_API_TOKENS),
    },
    sessionTtlHours: attempt(() => integer(env, "SESSION_TTL_HOURS", 48, 1, 8760), 48),
    loginFailuresPerMinute: attempt(() => integer(env, "SIMPLE_LOGIN_LIMIT_PER_MINUTE", 10, 1, 100_000), 10),
    passwordHashCost: attempt(() => passwordHashCost(env), PASSWORD_HASH_COST.default),
    defaultAdmin: attempt(() => defaultAdmin(env), undefined),
    uiDir: uiDir(env.UI_DIR),
    integrations: {
      allowPrivateUrl: attempt(() => flag(env, "UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION"), false),
      allowList: list(env.UNLEASH_ALLOW_LIST_INTEGRATION).map((host) => host.toLowerCase()),
      timeoutMs: attempt(() => integer(env, "INTEGRATION_TIMEOUT_MS", 10_000, 100, 600_000), 10_000),
      retryMs: attempt(() => integer(env, "INTEGRATION_RETRY_MS", 1000, 1, 600_000), 1000),
      giveUpMs: attempt(() => integer(env, "INTEGRATION_GIVE_UP_MS", 60_000, 0, 86_400_000), 60_000),
      slackApiUrl: env.INTEGRATION_SLACK_API_URL || "https://slack.com/api",
    },
    streaming: {
      maxStreams: attempt(() => integer(env, "STREAMING_MAX_CONNECTIONS", 10_000, 0, 1_000_000), 10_000),
      keepAliveMs: 30_000,
    },
    releases: {
      minuteMs: attempt(() => integer(env, "RELEASE_PLAN_MINUTE_MS", 60_000, 100, 60_000), 60_000),
      evaluationMs: attempt(() => integer(env, "SAFEGUARD_INTERVAL_MS", 60_000, 100, 3_600_000), 60_000),
      windowMs: attempt(() => integer(env, "SAFEGUARD_WINDOW_MS", 300_000, 1000, 86_400_000), 300_000),
    },
    impactMetrics: {
      maxMetrics: attempt(() => integer(env, "IMPACT_METRICS_MAX_METRICS", 100, 0, 100_000), 100),
      maxSeriesPerMetric: attempt(
        () => integer(env, "IMPACT_METRICS_MAX_SERIES_PER_METRIC", 1000, 0, 1_000_000),
        1000,
      ),
      retentionMs:
        attempt(() => integer(env, "IMPACT_METRICS_RETENTION_HOURS", 168, 1, 24 * 400), 168) * 3_600_000,
      resolutionSeconds: attempt(() => integer(env, "IMPACT_METRICS_RESOLUTION_SECONDS", 60, 1, 3600), 60),
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
      // The reference's `[]:` marks a token for several projects, which ones its secret does not say.
      else if (token.startsWith("[]:"))
        errors.push(`${name}: entry ${index + 1} is for several projects ([]:…): name one project, or *`);
      else if (name === "INIT_ADMIN_API_TOKENS" && !token.startsWith("*:*."))
        errors.push(
          `${name}: entry ${index + 1} must look like *:*.<secret> (admin tokens cover every project and environment)`,
        );
    });
  }
  if (errors.length > 0) throw new ConfigError(`invalid configuration: ${errors.join("; ")}`);
  return config;
}

/** A configuration for tests and embedding: defaults, overridden by what is given. */
export const defaultConfig = (overrides: Partial<Config> = {}): Config => ({
  ...loadConfig({}),
  // The API alone, whether or not the UI happens to be built in this checkout.
  uiDir: undefined,
  ...overrides,
});
