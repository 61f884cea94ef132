import { createHash, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context, CustomStrategy } from "@signalbox/engine";
import { createLogger, LOG_LEVELS, type LogFormat, type Logger, type LogLevel } from "./logger.js";
import { FileStorageProvider, type StorageProvider, whyUnwritable } from "./storage.js";
import {
  aliasOf,
  type Environment,
  optionOf,
  type ReadEnvironment,
  readEnvironment,
  renameOptions,
  VARIABLES,
  type VariableName,
  type VariableSpec,
  type VariableWith,
} from "./variables.js";

export type { Environment } from "./variables.js";

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

/**
 * The in-code configuration; every field falls back to its environment variable, then its
 * default. The option names of @unleash/proxy's `createApp` are accepted too.
 */
export interface ProxyOptions {
  serviceUrl?: string;
  serviceApiToken?: string;
  /** @unleash/proxy's name of `serviceUrl`. */
  unleashUrl?: string;
  /** @unleash/proxy's name of `serviceApiToken`. */
  unleashApiToken?: string;
  /** @unleash/proxy's name of `serviceAppName`. */
  unleashAppName?: string;
  /** @unleash/proxy's name of `serviceInstanceId`. */
  unleashInstanceId?: string;
  clientKeys?: string[];
  /** @deprecated Use `clientKeys`. */
  proxySecrets?: string[];
  proxyBasePath?: string;
  serviceAppName?: string;
  serviceInstanceId?: string;
  refreshInterval?: number;
  /** Follow the flag service's event stream where it has one; `true` unless set. */
  streaming?: boolean;
  streamRetryInterval?: number;
  /** Client tokens of the flag service whose configurations the /api routes follow from the start. */
  edgeTokens?: string[];
  /** Unleash Edge's offline mode: a features file served to the tokens listed, with no upstream. */
  offline?: {
    bootstrapFile?: string;
    clientTokens?: string[];
    frontendTokens?: string[];
    reloadInterval?: number;
  };
  tokenRevalidationInterval?: number;
  streamingMaxConnections?: number;
  metricsInterval?: number;
  metricsJitter?: number;
  environment?: string;
  projectName?: string;
  namePrefix?: string;
  tags?: TagFilter[];
  logger?: Logger;
  logFormat?: LogFormat;
  /** `true` is `logFormat: "json"`, `false` is `"pretty"`; `logFormat` wins. */
  useJsonLogger?: boolean;
  logLevel?: LogLevel;
  customStrategies?: CustomStrategy[];
  trustProxy?: boolean | string | string[];
  clientKeysHeaderName?: string;
  storageProvider?: StorageProvider;
  /** Folder for the file backup of the last configuration; `false` turns it off. Unused with `storageProvider`. */
  backupDir?: string | false;
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
  /** From PORT or PROXY_PORT: the standalone process's port and the default of `listen()`. */
  port: number;
  /** From HOST: the standalone process's address and the default of `listen()`. */
  host: string;
  /** Sanitised: empty, or a leading slash and no trailing one. */
  proxyBasePath: string;
  serviceAppName: string;
  serviceInstanceId: string;
  refreshInterval: number;
  streaming: boolean;
  streamRetryInterval: number;
  edgeTokens: string[];
  /** Set in offline mode: no upstream, a file. */
  offline:
    | { bootstrapFile: string; clientTokens: string[]; frontendTokens: string[]; reloadInterval: number }
    | undefined;
  tokenRevalidationInterval: number;
  streamingMaxConnections: number;
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
  /** The host's provider, else a file in `backupDir`, else none. */
  storageProvider: StorageProvider | undefined;
  /** What the configuration is saved under. */
  storageKey: string;
  /** Absolute; undefined when the file backup is off or a `storageProvider` replaces it. */
  backupDir: string | undefined;
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

/** Raised before start-up when the configuration cannot work; its one-line message names each option at fault. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const TRUST_PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

function present(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function fallbackOf<T>(variable: VariableWith<T>): T {
  return (VARIABLES[variable] as VariableSpec).fallback as T;
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

/** Every option's value comes from here, so that each error names the option and the variable. */
class Reader {
  readonly errors: string[] = [];

  constructor(private readonly env: ReadEnvironment) {}

  /** The option and the variable as the operator set it: `refreshInterval (UNLEASH_FETCH_INTERVAL)`. */
  label(variable: VariableName): string {
    const option = optionOf(variable);
    const name = this.env.sources.get(variable) ?? variable;
    return option ? `${option} (${name})` : name;
  }

  has(variable: VariableName): boolean {
    return this.env.values.has(variable);
  }

  text(option: string | undefined, variable: VariableName): string | undefined {
    return present(option) ?? this.env.values.get(variable);
  }

  textOr(option: string | undefined, variable: VariableWith<string>): string {
    return this.text(option, variable) ?? fallbackOf<string>(variable);
  }

  optionalBoolean(option: boolean | undefined, variable: VariableName): boolean | undefined {
    if (option !== undefined) return option;
    const raw = this.env.values.get(variable);
    return raw === undefined ? undefined : parseBoolean(raw);
  }

  boolean(option: boolean | undefined, variable: VariableWith<boolean>): boolean {
    return this.optionalBoolean(option, variable) ?? fallbackOf<boolean>(variable);
  }

  list(option: string[] | undefined, variable: VariableName): string[] | undefined {
    if (option !== undefined) return option.map((item) => item.trim()).filter((item) => item !== "");
    const raw = this.env.values.get(variable);
    return raw === undefined ? undefined : splitList(raw);
  }

  integer(option: number | undefined, variable: VariableWith<number>, min = 0, max = 2 ** 31): number {
    const raw = option ?? this.env.values.get(variable);
    const fallback = fallbackOf<number>(variable);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.errors.push(`${this.label(variable)} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  required(value: string | undefined, variable: VariableName): string {
    if (value === undefined) {
      const alias = aliasOf(variable);
      const option = optionOf(variable);
      this.errors.push(
        `${option} is required: set ${variable}${alias ? ` (or ${alias})` : ""} or the ${option} option`,
      );
    }
    return value ?? "";
  }

  /** Loads the array a script file exports (ESM default export or CommonJS module.exports). */
  async fileExports(variable: VariableName, what: string): Promise<unknown[] | undefined> {
    const file = this.env.values.get(variable);
    if (file === undefined) return undefined;
    const fix = `set ${this.label(variable)} to a script file exporting an array of ${what}`;
    try {
      const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
      if (Array.isArray(module.default)) return module.default;
      this.errors.push(`${file} does not export an array: ${fix}`);
    } catch (error) {
      // A syntax error's message can run over several lines; the first says what is wrong.
      const reason = ((error as Error).message ?? String(error)).split("\n")[0];
      this.errors.push(`cannot load ${file} (${reason}): ${fix}`);
    }
    return undefined;
  }
}

function serviceUrlOf(reader: Reader, raw: string | undefined): string {
  const url = reader.required(raw, "SERVICE_URL");
  if (url === "") return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    reader.errors.push(
      `${reader.label("SERVICE_URL")} must be an http(s) URL such as http://flags.example:4242/api, got "${url}"`,
    );
  }
  return url.replace(/\/+$/, "");
}

/** HTTP_PROXY or HTTPS_PROXY: an http or https proxy's URL, credentials allowed. */
function outgoingProxyOf(reader: Reader, name: "HTTP_PROXY" | "HTTPS_PROXY"): string | undefined {
  const url = reader.text(undefined, name);
  if (!url) return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    reader.errors.push(
      `${reader.label(name)} must be an http:// or https:// proxy URL such as http://proxy.example:3128, got "${url}"`,
    );
  }
  return url;
}

function clientKeysOf(reader: Reader, options: ProxyOptions, logger: Logger, optional: boolean): string[] {
  const keys = reader.list(options.clientKeys, "SERVICE_PROXY_CLIENT_KEYS");
  if (keys?.length) return keys;
  const secrets = reader.list(options.proxySecrets, "SERVICE_PROXY_SECRETS");
  if (secrets?.length) {
    logger.warn(
      `${reader.label("SERVICE_PROXY_SECRETS")} is deprecated; use ${reader.label("SERVICE_PROXY_CLIENT_KEYS")}`,
    );
    return secrets;
  }
  if (!optional) reader.required(undefined, "SERVICE_PROXY_CLIENT_KEYS");
  return [];
}

function offlineOf(reader: Reader, option: ProxyOptions["offline"]): ProxyConfig["offline"] {
  const bootstrapFile = reader.text(option?.bootstrapFile, "SERVICE_OFFLINE_BOOTSTRAP_FILE");
  const clientTokens = reader.list(option?.clientTokens, "SERVICE_OFFLINE_CLIENT_TOKENS") ?? [];
  const frontendTokens = reader.list(option?.frontendTokens, "SERVICE_OFFLINE_FRONTEND_TOKENS") ?? [];
  const reloadInterval = reader.integer(option?.reloadInterval, "SERVICE_OFFLINE_RELOAD_INTERVAL");
  if (bootstrapFile === undefined) {
    if (clientTokens.length > 0 || frontendTokens.length > 0) {
      reader.errors.push(
        `${reader.label("SERVICE_OFFLINE_CLIENT_TOKENS")} and ${reader.label("SERVICE_OFFLINE_FRONTEND_TOKENS")} are for offline mode: set ${reader.label("SERVICE_OFFLINE_BOOTSTRAP_FILE")} too`,
      );
    }
    return undefined;
  }
  return { bootstrapFile: resolve(bootstrapFile), clientTokens, frontendTokens, reloadInterval };
}

function tagsOf(reader: Reader, option: TagFilter[] | undefined): TagFilter[] {
  if (option !== undefined) return option;
  const tags: TagFilter[] = [];
  for (const entry of reader.list(undefined, "SERVICE_TAGS") ?? []) {
    const colon = entry.indexOf(":");
    if (colon <= 0 || colon === entry.length - 1) {
      reader.errors.push(`${reader.label("SERVICE_TAGS")} entries must look like name:value, got "${entry}"`);
      continue;
    }
    tags.push({ name: entry.slice(0, colon), value: entry.slice(colon + 1) });
  }
  return tags;
}

function trustProxyOf(reader: Reader, option: ProxyOptions["trustProxy"]): boolean | string[] {
  let value: boolean | string[];
  if (typeof option === "boolean") value = option;
  else if (option !== undefined) value = Array.isArray(option) ? option : splitList(option);
  else {
    const raw = reader.text(undefined, "TRUST_PROXY");
    if (raw === undefined) value = fallbackOf<boolean>("TRUST_PROXY");
    else if (raw.toLowerCase() === "false") value = false;
    else if (raw.toLowerCase() === "true") value = true;
    else value = splitList(raw);
  }
  if (Array.isArray(value)) {
    for (const entry of value.filter((item) => !isTrustedProxyEntry(item))) {
      reader.errors.push(
        `${reader.label("TRUST_PROXY")} must be true, false, or IP addresses / CIDR ranges, got "${entry}"`,
      );
    }
  }
  return value;
}

function corsOf(reader: Reader, option: CorsOptions | undefined): CorsOptions {
  const origins = reader.list(undefined, "CORS_ORIGIN") ?? [fallbackOf<string>("CORS_ORIGIN")];
  const allowedHeaders = reader.text(undefined, "CORS_ALLOWED_HEADERS");
  const fromEnv: CorsOptions = {
    origin: origins.length === 1 ? origins[0] : origins,
    methods: reader.textOr(undefined, "CORS_METHODS"),
    exposedHeaders: reader.textOr(undefined, "CORS_EXPOSED_HEADERS"),
    credentials: reader.boolean(undefined, "CORS_CREDENTIALS"),
    maxAge: reader.integer(undefined, "CORS_MAX_AGE"),
    optionsSuccessStatus: reader.integer(undefined, "CORS_OPTIONS_SUCCESS_STATUS", 200, 299),
    preflightContinue: reader.boolean(undefined, "CORS_PREFLIGHT_CONTINUE"),
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
      `${reader.label("SERVICE_CUSTOM_STRATEGIES_FILE")} must hold strategy objects with a name and an isEnabled(parameters, context) method`,
    );
  }
  return valid;
}

function enrichersOf(reader: Reader, loaded: unknown[]): ContextEnricher[] {
  const valid = loaded.filter((item): item is ContextEnricher => typeof item === "function");
  if (valid.length !== loaded.length) {
    reader.errors.push(`${reader.label("EXP_CUSTOM_ENRICHERS_FILE")} must hold functions taking a context`);
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

function logFormatOf(reader: Reader, options: ProxyOptions): LogFormat {
  const raw = reader.text(options.logFormat, "LOG_FORMAT")?.toLowerCase();
  if (raw === "json" || raw === "pretty") return raw;
  if (raw !== undefined)
    reader.errors.push(`${reader.label("LOG_FORMAT")} must be json or pretty, got "${raw}"`);
  const json = reader.optionalBoolean(options.useJsonLogger, "JSON_LOGGER");
  if (json !== undefined) return json ? "json" : "pretty";
  // A person reads a terminal; anything else is a collector that wants one object per line.
  return process.stdout.isTTY ? "pretty" : "json";
}

/**
 * The file backup's folder: BACKUP_DIR, else the command's default. A folder the operator
 * chose and that cannot be written stops start-up; the default one only turns backups off
 * (a read-only container still runs, as the reference proxy does).
 */
async function backupDirOf(
  reader: Reader,
  option: string | false | undefined,
  standalone: boolean,
  notices: string[],
): Promise<string | undefined> {
  if (option === false) return undefined;
  const chosen = reader.text(option, "BACKUP_DIR");
  if (chosen?.toLowerCase() === "off") return undefined;
  if (chosen === undefined && !standalone) return undefined;
  const dir = resolve(chosen ?? fallbackOf<string>("BACKUP_DIR"));
  const problem = await whyUnwritable(dir);
  if (problem === undefined) return dir;
  if (chosen !== undefined) {
    reader.errors.push(
      `${reader.label("BACKUP_DIR")} ${dir} cannot be written (${problem}): fix its permissions, choose another folder, or set BACKUP_DIR=off`,
    );
  } else {
    notices.push(
      `no backup of the configuration: ${dir} cannot be written (${problem}); set BACKUP_DIR to a writable folder, or BACKUP_DIR=off`,
    );
  }
  return undefined;
}

/**
 * The file a backup goes to depends on what the upstream sends: two proxies sharing a
 * folder with other tokens or filters must never start with each other's flags.
 */
function backupKey(
  config: Pick<
    ProxyConfig,
    "serviceAppName" | "serviceUrl" | "serviceApiToken" | "projectName" | "namePrefix" | "tags"
  >,
) {
  const upstream = JSON.stringify([
    config.serviceUrl,
    config.serviceApiToken,
    config.projectName,
    config.namePrefix,
    config.tags,
  ]);
  return `${config.serviceAppName}-${createHash("sha256").update(upstream).digest("hex").slice(0, 12)}`;
}

export interface ResolveOptions {
  /** The signalbox-proxy command: the file backup is on unless turned off. */
  standalone?: boolean;
}

/**
 * Merges in-code options over environment variables over defaults, as the reference proxy
 * does; @unleash/proxy's variable and option names stand in for Signalbox's when those are
 * unset. Every problem found is reported at once, in one ConfigError.
 */
export async function resolveConfig(
  given: ProxyOptions = {},
  env: Environment = process.env,
  { standalone = false }: ResolveOptions = {},
) {
  const read = readEnvironment(env);
  const { options, notices: renamed } = renameOptions(given);
  const notices = [...read.notices, ...renamed];
  const reader = new Reader(read);
  if ("preHook" in options) {
    reader.errors.push(
      "preHook (an Express hook of @unleash/proxy) is not supported: mount proxy.handler in a server of your own and add the middleware there",
    );
  }
  const logLevelText = reader.textOr(options.logLevel, "LOG_LEVEL").toLowerCase();
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText);
  if (!logLevel) reader.errors.push(`${reader.label("LOG_LEVEL")} must be one of ${LOG_LEVELS.join(", ")}`);
  const logger =
    options.logger ?? createLogger({ level: logLevel ?? "warn", format: logFormatOf(reader, options) });

  const offline = offlineOf(reader, options.offline);
  // Offline, nothing is asked of a flag service: its address and token are not needed.
  const serviceUrl = offline
    ? (reader.text(options.serviceUrl, "SERVICE_URL") ?? "")
    : serviceUrlOf(reader, reader.text(options.serviceUrl, "SERVICE_URL"));
  const serviceApiToken = offline
    ? (reader.text(options.serviceApiToken, "SERVICE_API_TOKEN") ?? "")
    : reader.required(reader.text(options.serviceApiToken, "SERVICE_API_TOKEN"), "SERVICE_API_TOKEN");
  const serviceAppName = reader.textOr(options.serviceAppName, "SERVICE_APP_NAME");
  const projectName = reader.text(options.projectName, "SERVICE_PROJECT_NAME");
  const namePrefix = reader.text(options.namePrefix, "SERVICE_NAME_PREFIX");
  const tags = tagsOf(reader, options.tags);
  const backupDir = options.storageProvider
    ? undefined
    : await backupDirOf(reader, options.backupDir, standalone, notices);

  const config: ProxyConfig = {
    serviceUrl,
    serviceApiToken,
    clientKeys: clientKeysOf(reader, options, logger, offline !== undefined),
    port: reader.integer(undefined, reader.has("PORT") ? "PORT" : "PROXY_PORT", 0, 65535),
    host: reader.textOr(undefined, "HOST"),
    proxyBasePath: sanitizeBasePath(options.proxyBasePath ?? reader.textOr(undefined, "PROXY_BASE_PATH")),
    serviceAppName,
    serviceInstanceId:
      reader.text(options.serviceInstanceId, "SERVICE_INSTANCE_ID") ??
      `generated-${randomBytes(4).toString("hex")}-${process.pid}-${hostname()}`,
    refreshInterval: reader.integer(options.refreshInterval, "SERVICE_FETCH_INTERVAL", 1),
    streaming: reader.boolean(options.streaming, "SERVICE_STREAMING"),
    streamRetryInterval: reader.integer(options.streamRetryInterval, "SERVICE_STREAM_RETRY_INTERVAL", 1),
    edgeTokens: reader.list(options.edgeTokens, "SERVICE_EDGE_TOKENS") ?? [],
    offline,
    tokenRevalidationInterval: reader.integer(
      options.tokenRevalidationInterval,
      "SERVICE_TOKEN_REVALIDATION_INTERVAL",
      1,
    ),
    streamingMaxConnections: reader.integer(
      options.streamingMaxConnections,
      "SERVICE_STREAMING_MAX_CONNECTIONS",
    ),
    metricsInterval: reader.integer(options.metricsInterval, "SERVICE_METRICS_INTERVAL", 1),
    metricsJitter: reader.integer(options.metricsJitter, "SERVICE_METRICS_JITTER"),
    environment: reader.text(options.environment, "SERVICE_ENVIRONMENT"),
    projectName,
    namePrefix,
    tags,
    logger,
    customStrategies: strategiesOf(
      reader,
      options.customStrategies ??
        (await reader.fileExports("SERVICE_CUSTOM_STRATEGIES_FILE", "strategy objects")) ??
        [],
    ),
    trustProxy: trustProxyOf(reader, options.trustProxy),
    clientKeysHeaderName: reader.textOr(options.clientKeysHeaderName, "CLIENT_KEY_HEADER_NAME").toLowerCase(),
    storageProvider: options.storageProvider ?? (backupDir ? new FileStorageProvider(backupDir) : undefined),
    // A host's provider gets the app name, as the reference proxy's SDK gives it.
    storageKey: options.storageProvider
      ? serviceAppName
      : backupKey({ serviceAppName, serviceUrl, serviceApiToken, projectName, namePrefix, tags }),
    backupDir,
    enableOAS: reader.boolean(options.enableOAS, "ENABLE_OAS"),
    enableAllEndpoint: reader.boolean(options.enableAllEndpoint, "ENABLE_ALL_ENDPOINT"),
    cors: corsOf(reader, options.cors),
    httpOptions: {
      rejectUnauthorized: reader.boolean(
        options.httpOptions?.rejectUnauthorized,
        "HTTP_OPTIONS_REJECT_UNAUTHORIZED",
      ),
    },
    httpProxy: outgoingProxyOf(reader, "HTTP_PROXY"),
    httpsProxy: outgoingProxyOf(reader, "HTTPS_PROXY"),
    noProxy: reader.text(undefined, "NO_PROXY"),
    expBootstrap: bootstrapOf(reader, options.expBootstrap),
    expServerSideSdkConfig: {
      tokens: reader.list(options.expServerSideSdkConfig?.tokens, "EXP_SERVER_SIDE_SDK_CONFIG_TOKENS") ?? [],
    },
    expCustomEnrichers: enrichersOf(
      reader,
      options.expCustomEnrichers ??
        (await reader.fileExports("EXP_CUSTOM_ENRICHERS_FILE", "context enricher functions")) ??
        [],
    ),
    hostname: reader.text(undefined, "HOSTNAME") ?? hostname(),
  };
  if (reader.errors.length > 0) throw new ConfigError(`invalid configuration: ${reader.errors.join("; ")}`);
  for (const notice of notices) logger.warn(notice);
  return config;
}
