import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context, CustomStrategy } from "@signalbox/engine";
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from "./logger.js";
import type { StorageProvider } from "./storage.js";

/** Runs on every evaluation context after it is built; returns the context to evaluate with. */
export type ContextEnricher = (context: Context) => Context | Promise<Context>;

export interface TagFilter {
  name: string;
  value: string;
}

export interface CorsOptions {
  /** Headers a browser may send; unset reflects what the preflight asks for. */
  allowedHeaders?: string | string[];
  credentials?: boolean;
  exposedHeaders?: string | string[];
  maxAge?: number;
  methods?: string | string[];
  optionsSuccessStatus?: number;
  /** `*`, one origin, or a list of origins that are echoed back when they match. */
  origin?: boolean | string | string[];
  /** Hands preflight requests on to the routes instead of answering them. */
  preflightContinue?: boolean;
}

/** The in-code configuration; every field falls back to its environment variable, then its default. */
export interface ProxyOptions {
  serviceUrl?: string;
  serviceApiToken?: string;
  clientKeys?: string[];
  /** @deprecated Use `clientKeys`. */
  proxySecrets?: string[];
  proxyBasePath?: string;
  serviceAppName?: string;
  serviceInstanceId?: string;
  refreshInterval?: number;
  metricsInterval?: number;
  metricsJitter?: number;
  environment?: string;
  projectName?: string;
  namePrefix?: string;
  tags?: TagFilter[];
  logger?: Logger;
  useJsonLogger?: boolean;
  logLevel?: LogLevel;
  customStrategies?: CustomStrategy[];
  trustProxy?: boolean | string | string[];
  clientKeysHeaderName?: string;
  storageProvider?: StorageProvider;
  enableOAS?: boolean;
  enableAllEndpoint?: boolean;
  cors?: CorsOptions;
  httpOptions?: { rejectUnauthorized?: boolean };
  expBootstrap?: { url: string; urlHeaders?: Record<string, string> };
  expServerSideSdkConfig?: { tokens: string[] };
  expCustomEnrichers?: ContextEnricher[];
}

export interface ProxyConfig {
  serviceUrl: string;
  serviceApiToken: string;
  clientKeys: string[];
  /** From PORT or PROXY_PORT; only the standalone process uses it. */
  port: number;
  /** Sanitised: empty, or a leading slash and no trailing one. */
  proxyBasePath: string;
  serviceAppName: string;
  serviceInstanceId: string;
  refreshInterval: number;
  metricsInterval: number;
  metricsJitter: number;
  environment: string | undefined;
  projectName: string | undefined;
  namePrefix: string | undefined;
  tags: TagFilter[];
  logger: Logger;
  customStrategies: CustomStrategy[];
  trustProxy: boolean | string[];
  /** Lower-cased, as Node presents header names. */
  clientKeysHeaderName: string;
  storageProvider: StorageProvider | undefined;
  enableOAS: boolean;
  enableAllEndpoint: boolean;
  cors: CorsOptions;
  httpOptions: { rejectUnauthorized: boolean };
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
  expBootstrap: { url: string; urlHeaders: Record<string, string> } | undefined;
  expServerSideSdkConfig: { tokens: string[] };
  expCustomEnrichers: ContextEnricher[];
  /** For the applicationHostname strategy: HOSTNAME, else the machine's name. */
  hostname: string;
}

export type Environment = Record<string, string | undefined>;

/** Raised before start-up when the configuration cannot work; the message names each option at fault. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const TRUST_PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

function present(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function splitList(raw: string): string[] {
  return raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function parseBoolean(raw: string): boolean {
  return ["true", "1", "t"].includes(raw.toLowerCase());
}

function sanitizeBasePath(path: string): string {
  const trimmed = path.trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

function isTrustedProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [address, bits, extra] = entry.split("/");
  if (extra !== undefined || !address || !bits || !/^\d+$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Every option's value comes from here, so that each error names the option and its variable. */
class Reader {
  readonly errors: string[] = [];

  constructor(private readonly env: Environment) {}

  text(option: string | undefined, variable: string): string | undefined {
    return present(option) ?? present(this.env[variable]);
  }

  boolean(option: boolean | undefined, variable: string, fallback: boolean): boolean {
    if (option !== undefined) return option;
    const raw = present(this.env[variable]);
    return raw === undefined ? fallback : parseBoolean(raw);
  }

  list(option: string[] | undefined, variable: string): string[] | undefined {
    if (option !== undefined) return option.map((item) => item.trim()).filter((item) => item !== "");
    const raw = present(this.env[variable]);
    return raw === undefined ? undefined : splitList(raw);
  }

  integer(
    name: string,
    option: number | undefined,
    variable: string,
    fallback: number,
    min = 0,
    max = 2 ** 31,
  ) {
    const raw = option ?? present(this.env[variable]);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.errors.push(`${name} (${variable}) must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  required(name: string, value: string | undefined, variable: string): string {
    if (value === undefined) this.errors.push(`${name} is required: set the ${name} option or ${variable}`);
    return value ?? "";
  }

  /** Loads the array a script file exports (ESM default export or CommonJS module.exports). */
  async fileExports(variable: string): Promise<unknown[] | undefined> {
    const file = present(this.env[variable]);
    if (file === undefined) return undefined;
    try {
      const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
      if (Array.isArray(module.default)) return module.default;
      this.errors.push(`${variable}: ${file} must export an array`);
    } catch (error) {
      this.errors.push(`${variable}: cannot load ${file}: ${(error as Error).message}`);
    }
    return undefined;
  }
}

function serviceUrlOf(reader: Reader, raw: string | undefined): string {
  const url = reader.required("serviceUrl", raw, "SERVICE_URL");
  if (url === "") return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    reader.errors.push(`serviceUrl (SERVICE_URL) must be an http(s) URL, got "${url}"`);
  }
  return url.replace(/\/+$/, "");
}

function clientKeysOf(reader: Reader, options: ProxyOptions, logger: Logger): string[] {
  const keys = reader.list(options.clientKeys, "SERVICE_PROXY_CLIENT_KEYS");
  if (keys?.length) return keys;
  const secrets = reader.list(options.proxySecrets, "SERVICE_PROXY_SECRETS");
  if (secrets?.length) {
    logger.warn(
      "proxySecrets (SERVICE_PROXY_SECRETS) is deprecated; use clientKeys (SERVICE_PROXY_CLIENT_KEYS)",
    );
    return secrets;
  }
  reader.errors.push(
    "clientKeys is required: set the clientKeys option or SERVICE_PROXY_CLIENT_KEYS (proxySecrets / SERVICE_PROXY_SECRETS is the deprecated alias)",
  );
  return [];
}

function tagsOf(reader: Reader, option: TagFilter[] | undefined): TagFilter[] {
  if (option !== undefined) return option;
  const tags: TagFilter[] = [];
  for (const entry of reader.list(undefined, "SERVICE_TAGS") ?? []) {
    const colon = entry.indexOf(":");
    if (colon <= 0 || colon === entry.length - 1) {
      reader.errors.push(`tags (SERVICE_TAGS) entries must look like name:value, got "${entry}"`);
      continue;
    }
    tags.push({ name: entry.slice(0, colon), value: entry.slice(colon + 1) });
  }
  return tags;
}

function trustProxyOf(
  reader: Reader,
  option: ProxyOptions["trustProxy"],
  env: Environment,
): boolean | string[] {
  let value: boolean | string[];
  if (typeof option === "boolean") value = option;
  else if (option !== undefined) value = Array.isArray(option) ? option : splitList(option);
  else {
    const raw = present(env.TRUST_PROXY);
    if (raw === undefined || raw.toLowerCase() === "false") value = false;
    else if (raw.toLowerCase() === "true") value = true;
    else value = splitList(raw);
  }
  if (Array.isArray(value)) {
    for (const entry of value.filter((item) => !isTrustedProxyEntry(item))) {
      reader.errors.push(
        `trustProxy (TRUST_PROXY) must be true, false, or IP addresses / CIDR ranges, got "${entry}"`,
      );
    }
  }
  return value;
}

function corsOf(reader: Reader, option: CorsOptions | undefined): CorsOptions {
  const origins = reader.list(undefined, "CORS_ORIGIN") ?? ["*"];
  const allowedHeaders = reader.text(undefined, "CORS_ALLOWED_HEADERS");
  const fromEnv: CorsOptions = {
    origin: origins.length === 1 ? origins[0] : origins,
    methods: reader.text(undefined, "CORS_METHODS") ?? "GET, POST",
    exposedHeaders: reader.text(undefined, "CORS_EXPOSED_HEADERS") ?? "ETag",
    credentials: reader.boolean(undefined, "CORS_CREDENTIALS", false),
    maxAge: reader.integer("cors.maxAge", undefined, "CORS_MAX_AGE", 172800),
    optionsSuccessStatus: reader.integer(
      "cors.optionsSuccessStatus",
      undefined,
      "CORS_OPTIONS_SUCCESS_STATUS",
      204,
      200,
      299,
    ),
    preflightContinue: reader.boolean(undefined, "CORS_PREFLIGHT_CONTINUE", false),
    ...(allowedHeaders === undefined ? {} : { allowedHeaders }),
  };
  // An in-code object overrides field by field, so a host setting only `origin` keeps ETag exposed.
  const overrides = Object.entries(option ?? {}).filter(([, value]) => value !== undefined);
  return { ...fromEnv, ...Object.fromEntries(overrides) };
}

function strategiesOf(reader: Reader, loaded: unknown[]): CustomStrategy[] {
  const valid = loaded.filter(
    (item): item is CustomStrategy =>
      typeof item === "object" &&
      item !== null &&
      typeof (item as CustomStrategy).name === "string" &&
      typeof (item as CustomStrategy).isEnabled === "function",
  );
  if (valid.length !== loaded.length) {
    reader.errors.push(
      "customStrategies (SERVICE_CUSTOM_STRATEGIES_FILE) must be strategy objects with a name and an isEnabled(parameters, context) method",
    );
  }
  return valid;
}

function enrichersOf(reader: Reader, loaded: unknown[]): ContextEnricher[] {
  const valid = loaded.filter((item): item is ContextEnricher => typeof item === "function");
  if (valid.length !== loaded.length) {
    reader.errors.push("expCustomEnrichers (EXP_CUSTOM_ENRICHERS_FILE) must be functions taking a context");
  }
  return valid;
}

function bootstrapOf(reader: Reader, option: ProxyOptions["expBootstrap"]): ProxyConfig["expBootstrap"] {
  const url = reader.text(option?.url, "EXP_BOOTSTRAP_URL");
  if (url === undefined) return undefined;
  const authorization = reader.text(undefined, "EXP_BOOTSTRAP_AUTHORIZATION");
  const urlHeaders = option?.urlHeaders ?? (authorization ? { Authorization: authorization } : {});
  return { url, urlHeaders };
}

/**
 * Merges in-code options over environment variables over defaults, as the reference proxy
 * does. Every problem found is reported at once, in one ConfigError.
 */
export async function resolveConfig(options: ProxyOptions = {}, env: Environment = process.env) {
  const reader = new Reader(env);
  const logLevelText = reader.text(options.logLevel, "LOG_LEVEL")?.toLowerCase() ?? "warn";
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText);
  if (!logLevel) reader.errors.push(`logLevel (LOG_LEVEL) must be one of ${LOG_LEVELS.join(", ")}`);
  const logger =
    options.logger ??
    createLogger({
      level: logLevel ?? "warn",
      json: reader.boolean(options.useJsonLogger, "JSON_LOGGER", false),
    });

  const config: ProxyConfig = {
    serviceUrl: serviceUrlOf(reader, reader.text(options.serviceUrl, "SERVICE_URL")),
    serviceApiToken: reader.required(
      "serviceApiToken",
      reader.text(options.serviceApiToken, "SERVICE_API_TOKEN"),
      "SERVICE_API_TOKEN",
    ),
    clientKeys: clientKeysOf(reader, options, logger),
    port: reader.integer("port", undefined, env.PORT ? "PORT" : "PROXY_PORT", 3000, 0, 65535),
    proxyBasePath: sanitizeBasePath(options.proxyBasePath ?? env.PROXY_BASE_PATH ?? ""),
    serviceAppName: reader.text(options.serviceAppName, "SERVICE_APP_NAME") ?? "service-proxy",
    serviceInstanceId:
      reader.text(options.serviceInstanceId, "SERVICE_INSTANCE_ID") ??
      `generated-${randomBytes(4).toString("hex")}-${process.pid}-${hostname()}`,
    refreshInterval: reader.integer(
      "refreshInterval",
      options.refreshInterval,
      "SERVICE_FETCH_INTERVAL",
      5000,
      1,
    ),
    metricsInterval: reader.integer(
      "metricsInterval",
      options.metricsInterval,
      "SERVICE_METRICS_INTERVAL",
      30000,
      1,
    ),
    metricsJitter: reader.integer("metricsJitter", options.metricsJitter, "SERVICE_METRICS_JITTER", 0),
    environment: reader.text(options.environment, "SERVICE_ENVIRONMENT"),
    projectName: reader.text(options.projectName, "SERVICE_PROJECT_NAME"),
    namePrefix: reader.text(options.namePrefix, "SERVICE_NAME_PREFIX"),
    tags: tagsOf(reader, options.tags),
    logger,
    customStrategies: strategiesOf(
      reader,
      options.customStrategies ?? (await reader.fileExports("SERVICE_CUSTOM_STRATEGIES_FILE")) ?? [],
    ),
    trustProxy: trustProxyOf(reader, options.trustProxy, env),
    clientKeysHeaderName: (
      reader.text(options.clientKeysHeaderName, "CLIENT_KEY_HEADER_NAME") ?? "authorization"
    ).toLowerCase(),
    storageProvider: options.storageProvider,
    enableOAS: reader.boolean(options.enableOAS, "ENABLE_OAS", false),
    enableAllEndpoint: reader.boolean(options.enableAllEndpoint, "ENABLE_ALL_ENDPOINT", false),
    cors: corsOf(reader, options.cors),
    httpOptions: {
      rejectUnauthorized: reader.boolean(
        options.httpOptions?.rejectUnauthorized,
        "HTTP_OPTIONS_REJECT_UNAUTHORIZED",
        true,
      ),
    },
    httpProxy: present(env.HTTP_PROXY) ?? present(env.http_proxy),
    httpsProxy: present(env.HTTPS_PROXY) ?? present(env.https_proxy),
    noProxy: present(env.NO_PROXY) ?? present(env.no_proxy),
    expBootstrap: bootstrapOf(reader, options.expBootstrap),
    expServerSideSdkConfig: {
      tokens: reader.list(options.expServerSideSdkConfig?.tokens, "EXP_SERVER_SIDE_SDK_CONFIG_TOKENS") ?? [],
    },
    expCustomEnrichers: enrichersOf(
      reader,
      options.expCustomEnrichers ?? (await reader.fileExports("EXP_CUSTOM_ENRICHERS_FILE")) ?? [],
    ),
    hostname: present(env.HOSTNAME) ?? hostname(),
  };
  if (reader.errors.length > 0) {
    throw new ConfigError(`The proxy cannot start:\n  - ${reader.errors.join("\n  - ")}`);
  }
  return config;
}
