/** One environment variable of the proxy: what sets it in code, its default, and its @unleash/proxy name. */
export interface VariableSpec {
  /** The in-code option it stands for, as the options table names it (`serviceUrl`, `cors.maxAge`). */
  readonly option?: string;
  /** The value used when neither the option nor the variable is set. */
  readonly fallback?: string | number | boolean;
  /** How --help shows a default that is computed rather than fixed. */
  readonly shown?: string;
  readonly meaning: string;
  /** The name @unleash/proxy 1.4 reads for the same setting; read when this one is unset. */
  readonly alias?: string;
  /** The in-code option name @unleash/proxy 1.4 takes for the same setting. */
  readonly optionAlias?: string;
  /** The lower-case spelling counts too, as command-line tools have it for proxy variables. */
  readonly lowerCaseToo?: boolean;
  /**
   * Unleash Edge's name for the same setting, read when neither this name nor the alias is
   * set, through `read` where Edge counts in other units (seconds for milliseconds).
   */
  readonly edge?: { readonly name: string; readonly read?: (raw: string) => string };
}

/** Edge's seconds as the proxy's milliseconds; anything else is left for the reader to refuse. */
const seconds = (raw: string) => (/^\d+$/.test(raw) ? String(Number(raw) * 1000) : raw);

/**
 * Every variable the proxy reads, in the order --help lists them. Configuration reads the
 * environment through this table only, so help, defaults and the Unleash names cannot drift apart.
 */
export const VARIABLES = {
  SERVICE_URL: {
    option: "serviceUrl",
    meaning: "API URL of the flag service, ending in /api (required)",
    alias: "UNLEASH_URL",
    optionAlias: "unleashUrl",
    edge: { name: "UPSTREAM_URL", read: (raw) => `${raw.replace(/\/+$/, "")}/api` },
  },
  SERVICE_API_TOKEN: {
    option: "serviceApiToken",
    meaning: "client API token the proxy sends upstream (required)",
    alias: "UNLEASH_API_TOKEN",
    optionAlias: "unleashApiToken",
  },
  SERVICE_PROXY_CLIENT_KEYS: {
    option: "clientKeys",
    meaning: "comma-separated keys that client SDKs must send (required)",
    alias: "UNLEASH_PROXY_CLIENT_KEYS",
  },
  SERVICE_PROXY_SECRETS: {
    option: "proxySecrets",
    meaning: "deprecated name of SERVICE_PROXY_CLIENT_KEYS",
    alias: "UNLEASH_PROXY_SECRETS",
  },
  PORT: { fallback: 3000, meaning: "listening port" },
  PROXY_PORT: { fallback: 3000, meaning: "listening port when PORT is unset" },
  HOST: {
    fallback: "0.0.0.0",
    meaning: "listening address (:: for every IPv6 and IPv4 address)",
    edge: { name: "INTERFACE" },
  },
  PROXY_BASE_PATH: {
    option: "proxyBasePath",
    fallback: "",
    shown: "empty",
    meaning: "prefix of every route: base/path serves /base/path/proxy",
  },
  SERVICE_APP_NAME: {
    option: "serviceAppName",
    fallback: "service-proxy",
    meaning: "app name the proxy registers and reports usage under",
    alias: "UNLEASH_APP_NAME",
    optionAlias: "unleashAppName",
  },
  SERVICE_INSTANCE_ID: {
    option: "serviceInstanceId",
    shown: "generated-<random>-<pid>-<host>",
    meaning: "instance id the proxy registers under",
    alias: "UNLEASH_INSTANCE_ID",
    optionAlias: "unleashInstanceId",
  },
  SERVICE_FETCH_INTERVAL: {
    option: "refreshInterval",
    fallback: 5000,
    meaning: "ms between polls of the flag service",
    alias: "UNLEASH_FETCH_INTERVAL",
    edge: { name: "FEATURES_REFRESH_INTERVAL_SECONDS", read: seconds },
  },
  SERVICE_STREAMING: {
    option: "streaming",
    fallback: true,
    meaning: "follow the flag service's event stream where it has one (polling where it answers 404)",
    edge: { name: "STREAMING" },
  },
  SERVICE_STREAM_RETRY_INTERVAL: {
    option: "streamRetryInterval",
    fallback: 300000,
    meaning: "ms of polling, for want of a stream, before the stream is tried again",
  },
  SERVICE_EDGE_TOKENS: {
    option: "edgeTokens",
    meaning:
      "client tokens of the flag service whose configurations /api/client and /api/frontend serve from the start (others are followed once an SDK presents them)",
    edge: { name: "TOKENS" },
  },
  SERVICE_TOKEN_REVALIDATION_INTERVAL: {
    option: "tokenRevalidationInterval",
    fallback: 60000,
    meaning:
      "ms a flag service token presented on /api is trusted before the service is asked about it again",
    edge: { name: "TOKEN_REVALIDATION_INTERVAL_SECONDS", read: seconds },
  },
  SERVICE_STREAMING_MAX_CONNECTIONS: {
    option: "streamingMaxConnections",
    fallback: 10000,
    meaning: "SDK streams on /api/client/streaming held at once; past it SDKs are told to poll",
  },
  SERVICE_OFFLINE_BOOTSTRAP_FILE: {
    option: "offline.bootstrapFile",
    meaning:
      "offline mode: a features file served with no flag service at all (SERVICE_URL and SERVICE_API_TOKEN are then not needed)",
    edge: { name: "BOOTSTRAP_FILE" },
  },
  SERVICE_OFFLINE_CLIENT_TOKENS: {
    option: "offline.clientTokens",
    meaning: "offline mode: tokens server SDKs use on /api/client, comma-separated",
    edge: { name: "CLIENT_TOKENS" },
  },
  SERVICE_OFFLINE_FRONTEND_TOKENS: {
    option: "offline.frontendTokens",
    meaning: "offline mode: tokens browser SDKs use on /api/frontend, comma-separated",
    edge: { name: "FRONTEND_TOKENS" },
  },
  SERVICE_OFFLINE_RELOAD_INTERVAL: {
    option: "offline.reloadInterval",
    fallback: 0,
    meaning: "offline mode: ms between reads of the features file; 0 reads it once",
    edge: { name: "RELOAD_INTERVAL", read: seconds },
  },
  SERVICE_METRICS_INTERVAL: {
    option: "metricsInterval",
    fallback: 30000,
    meaning: "ms between usage reports",
    alias: "UNLEASH_METRICS_INTERVAL",
    edge: { name: "METRICS_INTERVAL_SECONDS", read: seconds },
  },
  SERVICE_METRICS_JITTER: {
    option: "metricsJitter",
    fallback: 0,
    meaning: "up to this many ms added at random to each usage interval",
    alias: "UNLEASH_METRICS_JITTER",
  },
  SERVICE_ENVIRONMENT: {
    option: "environment",
    meaning: "environment of every evaluation context; callers cannot override it",
    alias: "UNLEASH_ENVIRONMENT",
  },
  SERVICE_PROJECT_NAME: {
    option: "projectName",
    meaning: "only this project's flags are fetched",
    alias: "UNLEASH_PROJECT_NAME",
  },
  SERVICE_NAME_PREFIX: {
    option: "namePrefix",
    meaning: "only flags whose name starts with this are fetched",
    alias: "UNLEASH_NAME_PREFIX",
  },
  SERVICE_TAGS: {
    option: "tags",
    meaning: "only flags with these tags are fetched: name:value,name2:value2",
    alias: "UNLEASH_TAGS",
  },
  SERVICE_CUSTOM_STRATEGIES_FILE: {
    option: "customStrategies",
    meaning: "script file exporting an array of custom strategies",
    alias: "UNLEASH_CUSTOM_STRATEGIES_FILE",
  },
  BACKUP_DIR: {
    option: "backupDir",
    fallback: "./data/proxy",
    shown: "./data/proxy for the signalbox-proxy command, none when embedded",
    meaning:
      "folder keeping the last configuration, served at start while the flag service is down; off disables it",
    edge: { name: "BACKUP_FOLDER" },
  },
  LOG_LEVEL: { option: "logLevel", fallback: "warn", meaning: "debug, info, warn, error or fatal" },
  LOG_FORMAT: {
    option: "logFormat",
    shown: "json, or pretty on a terminal",
    meaning: "json (one object per line) or pretty",
  },
  JSON_LOGGER: {
    option: "useJsonLogger",
    meaning: "true is LOG_FORMAT=json, false is LOG_FORMAT=pretty; LOG_FORMAT wins",
  },
  TRUST_PROXY: {
    option: "trustProxy",
    fallback: false,
    meaning: "true, false, or IPs / CIDR ranges whose X-Forwarded-For is trusted",
  },
  CLIENT_KEY_HEADER_NAME: {
    option: "clientKeysHeaderName",
    fallback: "authorization",
    meaning: "header carrying the client key",
  },
  ENABLE_OAS: {
    option: "enableOAS",
    fallback: false,
    meaning: "serve /docs/openapi.json and the page /docs/openapi",
  },
  ENABLE_ALL_ENDPOINT: { option: "enableAllEndpoint", fallback: false, meaning: "serve /proxy/all" },
  CORS_ORIGIN: { option: "cors.origin", fallback: "*", meaning: "allowed origins, comma-separated" },
  CORS_METHODS: { option: "cors.methods", fallback: "GET, POST", meaning: "Access-Control-Allow-Methods" },
  CORS_ALLOWED_HEADERS: {
    option: "cors.allowedHeaders",
    shown: "the headers a preflight asks for",
    meaning: "Access-Control-Allow-Headers",
  },
  CORS_EXPOSED_HEADERS: {
    option: "cors.exposedHeaders",
    fallback: "ETag",
    meaning: "Access-Control-Expose-Headers",
  },
  CORS_CREDENTIALS: {
    option: "cors.credentials",
    fallback: false,
    meaning: "send Access-Control-Allow-Credentials: true",
  },
  CORS_MAX_AGE: { option: "cors.maxAge", fallback: 172800, meaning: "Access-Control-Max-Age, seconds" },
  CORS_OPTIONS_SUCCESS_STATUS: {
    option: "cors.optionsSuccessStatus",
    fallback: 204,
    meaning: "status of an answered preflight",
  },
  CORS_PREFLIGHT_CONTINUE: {
    option: "cors.preflightContinue",
    fallback: false,
    meaning: "hand preflights on to the routes instead of answering them",
  },
  HTTP_OPTIONS_REJECT_UNAUTHORIZED: {
    option: "httpOptions.rejectUnauthorized",
    fallback: true,
    meaning: "refuse upstream servers whose certificate does not verify",
    edge: {
      name: "SKIP_SSL_VERIFICATION",
      read: (raw) => String(!["true", "1", "t"].includes(raw.toLowerCase())),
    },
  },
  HTTP_PROXY: { meaning: "proxy for outgoing calls to http: URLs (http_proxy too)", lowerCaseToo: true },
  HTTPS_PROXY: { meaning: "proxy for outgoing calls to https: URLs (https_proxy too)", lowerCaseToo: true },
  NO_PROXY: {
    meaning: "hosts reached without those proxies, comma-separated (no_proxy too)",
    lowerCaseToo: true,
  },
  EXP_BOOTSTRAP_URL: {
    option: "expBootstrap.url",
    meaning: "experimental: a features document served until the flag service answers",
  },
  EXP_BOOTSTRAP_AUTHORIZATION: {
    option: "expBootstrap.urlHeaders",
    meaning: "experimental: Authorization header of the bootstrap request",
  },
  EXP_SERVER_SIDE_SDK_CONFIG_TOKENS: {
    option: "expServerSideSdkConfig.tokens",
    meaning: "experimental: tokens that server SDKs use on /proxy/client/features",
  },
  EXP_CUSTOM_ENRICHERS_FILE: {
    option: "expCustomEnrichers",
    meaning: "experimental: script file exporting an array of context enrichers",
  },
  HOSTNAME: { shown: "the machine's name", meaning: "host name for the applicationHostname strategy" },
} as const satisfies Record<string, VariableSpec>;

export type VariableName = keyof typeof VARIABLES;

/** The variables whose default is of type T, so a reader of T can take its default from the table. */
export type VariableWith<T> = {
  [K in VariableName]: (typeof VARIABLES)[K] extends { fallback: T } ? K : never;
}[VariableName];

const spec = (name: VariableName): VariableSpec => VARIABLES[name];

/** The default as --help and error messages show it. */
export function shownDefault(name: VariableName): string {
  const { shown, fallback } = spec(name);
  return shown ?? (fallback === undefined ? "none" : String(fallback));
}

export function aliasOf(name: VariableName): string | undefined {
  return spec(name).alias;
}

export function edgeNameOf(name: VariableName): string | undefined {
  return spec(name).edge?.name;
}

export function optionOf(name: VariableName): string | undefined {
  return spec(name).option;
}

export type Environment = Record<string, string | undefined>;

function present(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  return value === undefined || value === "" ? undefined : value;
}

export interface ReadEnvironment {
  /** The value of each variable that is set, under its own name, whichever name set it. */
  values: Map<VariableName, string>;
  /** The name that set each value, for messages that must name what the operator wrote. */
  sources: Map<VariableName, string>;
  /** One line per @unleash/proxy name that was set: read, or ignored for the Signalbox name. */
  notices: string[];
}

/** Reads every variable of the table, each from its own name, else its lower-case spelling, else its alias. */
export function readEnvironment(env: Environment): ReadEnvironment {
  const values = new Map<VariableName, string>();
  const sources = new Map<VariableName, string>();
  const notices: string[] = [];
  for (const name of Object.keys(VARIABLES) as VariableName[]) {
    const { alias, lowerCaseToo, edge } = spec(name);
    const candidates = [name, lowerCaseToo ? name.toLowerCase() : undefined, alias, edge?.name];
    const source = candidates.find((candidate) => candidate && present(env[candidate]) !== undefined);
    if (source) {
      const raw = present(env[source])!;
      values.set(name, source === edge?.name && edge.read ? edge.read(raw) : raw);
      sources.set(name, source);
    }
    if (edge && source === edge.name) notices.push(`${edge.name} (Unleash Edge's name) is read as ${name}`);
    if (alias && present(env[alias]) !== undefined) {
      notices.push(
        source === alias
          ? `${alias} is read as ${name}, its Signalbox name`
          : `${alias} is ignored: ${name} is set as well and wins`,
      );
    }
  }
  return { values, sources, notices };
}

/**
 * Moves each option given under its @unleash/proxy name to the Signalbox name, unless that
 * one is set too; one notice per reference name given.
 */
export function renameOptions<T extends object>(options: T): { options: T; notices: string[] } {
  const renamed = { ...options } as Record<string, unknown>;
  const notices: string[] = [];
  for (const { option, optionAlias } of Object.values(VARIABLES) as VariableSpec[]) {
    if (!option || !optionAlias || renamed[optionAlias] === undefined) continue;
    if (renamed[option] === undefined) {
      renamed[option] = renamed[optionAlias];
      notices.push(`the option ${optionAlias} is read as ${option}, its Signalbox name`);
    } else {
      notices.push(`the option ${optionAlias} is ignored: ${option} is set as well and wins`);
    }
    delete renamed[optionAlias];
  }
  return { options: renamed as T, notices };
}
