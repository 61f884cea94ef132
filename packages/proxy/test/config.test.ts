import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  ConfigError,
  type Environment,
  FileStorageProvider,
  type ProxyOptions,
  resolveConfig,
  VARIABLES,
} from "../src/index.js";
import { recordingLogger } from "./support/fixtures.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const REQUIRED: Environment = {
  SERVICE_URL: "http://upstream.test/api/",
  SERVICE_API_TOKEN: "token",
  SERVICE_PROXY_CLIENT_KEYS: "k1, k2",
};

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe("required options", () => {
  test("each missing one is named, with its variable", async () => {
    const message = await failure(resolveConfig({}, {}));
    for (const name of ["serviceUrl", "SERVICE_URL", "serviceApiToken", "SERVICE_API_TOKEN", "clientKeys"]) {
      expect(message).toContain(name);
    }
    expect(message).toContain("SERVICE_PROXY_CLIENT_KEYS");
  });

  test("come from the environment, lists split on commas", async () => {
    const config = await resolveConfig({}, REQUIRED);
    expect(config.serviceUrl).toBe("http://upstream.test/api");
    expect(config.serviceApiToken).toBe("token");
    expect(config.clientKeys).toEqual(["k1", "k2"]);
  });

  test("in-code options win over the environment", async () => {
    const config = await resolveConfig(
      { serviceUrl: "http://code.test/api", serviceApiToken: "code", clientKeys: ["c"] },
      REQUIRED,
    );
    expect([config.serviceUrl, config.serviceApiToken, config.clientKeys]).toEqual([
      "http://code.test/api",
      "code",
      ["c"],
    ]);
  });

  test("proxySecrets and SERVICE_PROXY_SECRETS are the deprecated alias of clientKeys", async () => {
    const logger = recordingLogger();
    const fromCode = await resolveConfig(
      { serviceUrl: "http://u/api", serviceApiToken: "t", proxySecrets: ["s"], logger },
      {},
    );
    expect(fromCode.clientKeys).toEqual(["s"]);
    expect(logger.has("warn", "deprecated")).toBe(true);
    const fromEnv = await resolveConfig(
      { logger },
      { ...REQUIRED, SERVICE_PROXY_CLIENT_KEYS: "", SERVICE_PROXY_SECRETS: "a,b" },
    );
    expect(fromEnv.clientKeys).toEqual(["a", "b"]);
  });

  test("a serviceUrl that is not http(s) is refused", async () => {
    expect(await failure(resolveConfig({}, { ...REQUIRED, SERVICE_URL: "ftp://x" }))).toContain(
      "SERVICE_URL",
    );
  });
});

describe("every option reads its variable", () => {
  test("with the defaults of the spec", async () => {
    const config = await resolveConfig({}, REQUIRED);
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      proxyBasePath: "",
      serviceAppName: "service-proxy",
      refreshInterval: 5000,
      metricsInterval: 30000,
      metricsJitter: 0,
      environment: undefined,
      projectName: undefined,
      namePrefix: undefined,
      tags: [],
      customStrategies: [],
      trustProxy: false,
      clientKeysHeaderName: "authorization",
      storageProvider: undefined,
      backupDir: undefined,
      enableOAS: false,
      enableAllEndpoint: false,
      cors: {
        origin: "*",
        methods: "GET, POST",
        exposedHeaders: "ETag",
        credentials: false,
        maxAge: 172800,
        optionsSuccessStatus: 204,
        preflightContinue: false,
      },
      httpOptions: { rejectUnauthorized: true },
      httpProxy: undefined,
      httpsProxy: undefined,
      expBootstrap: undefined,
      expServerSideSdkConfig: { tokens: [] },
      expCustomEnrichers: [],
    });
    expect(config.cors).not.toHaveProperty("allowedHeaders");
    expect(config.serviceInstanceId).toMatch(/^generated-/);
  });

  test("with values from the environment", async () => {
    const config = await resolveConfig(
      {},
      {
        ...REQUIRED,
        PROXY_PORT: "4000",
        HOST: "::",
        PROXY_BASE_PATH: "base/path/",
        SERVICE_APP_NAME: "edge-app",
        SERVICE_INSTANCE_ID: "instance-1",
        SERVICE_FETCH_INTERVAL: "1000",
        SERVICE_METRICS_INTERVAL: "2000",
        SERVICE_METRICS_JITTER: "300",
        SERVICE_ENVIRONMENT: "production",
        SERVICE_PROJECT_NAME: "web",
        SERVICE_NAME_PREFIX: "web.",
        SERVICE_TAGS: "team:checkout, simple:yes",
        TRUST_PROXY: "TRUE",
        CLIENT_KEY_HEADER_NAME: "X-Client-Key",
        ENABLE_OAS: "t",
        ENABLE_ALL_ENDPOINT: "1",
        CORS_ALLOWED_HEADERS: "authorization, content-type",
        CORS_CREDENTIALS: "true",
        CORS_EXPOSED_HEADERS: "ETag, X-Other",
        CORS_MAX_AGE: "60",
        CORS_METHODS: "GET",
        CORS_OPTIONS_SUCCESS_STATUS: "200",
        CORS_ORIGIN: "https://a.test, https://b.test",
        CORS_PREFLIGHT_CONTINUE: "true",
        HTTP_OPTIONS_REJECT_UNAUTHORIZED: "false",
        HTTP_PROXY: "http://proxy.test:3128",
        HTTPS_PROXY: "http://secure-proxy.test:3128",
        EXP_BOOTSTRAP_URL: "https://bootstrap.test/features.json",
        EXP_BOOTSTRAP_AUTHORIZATION: "bootstrap-secret",
        EXP_SERVER_SIDE_SDK_CONFIG_TOKENS: "server-1,server-2",
      },
    );
    expect(config).toMatchObject({
      port: 4000,
      host: "::",
      proxyBasePath: "/base/path",
      serviceAppName: "edge-app",
      serviceInstanceId: "instance-1",
      refreshInterval: 1000,
      metricsInterval: 2000,
      metricsJitter: 300,
      environment: "production",
      projectName: "web",
      namePrefix: "web.",
      tags: [
        { name: "team", value: "checkout" },
        { name: "simple", value: "yes" },
      ],
      trustProxy: true,
      clientKeysHeaderName: "x-client-key",
      enableOAS: true,
      enableAllEndpoint: true,
      cors: {
        allowedHeaders: "authorization, content-type",
        credentials: true,
        exposedHeaders: "ETag, X-Other",
        maxAge: 60,
        methods: "GET",
        optionsSuccessStatus: 200,
        origin: ["https://a.test", "https://b.test"],
        preflightContinue: true,
      },
      httpOptions: { rejectUnauthorized: false },
      httpProxy: "http://proxy.test:3128",
      httpsProxy: "http://secure-proxy.test:3128",
      expBootstrap: {
        url: "https://bootstrap.test/features.json",
        urlHeaders: { Authorization: "bootstrap-secret" },
      },
      expServerSideSdkConfig: { tokens: ["server-1", "server-2"] },
    });
  });

  test("PORT wins over PROXY_PORT", async () => {
    expect((await resolveConfig({}, { ...REQUIRED, PORT: "5000", PROXY_PORT: "6000" })).port).toBe(5000);
  });

  test("an in-code cors object overrides field by field", async () => {
    const config = await resolveConfig({ cors: { origin: "https://app.test", maxAge: 10 } }, REQUIRED);
    expect(config.cors).toMatchObject({ origin: "https://app.test", maxAge: 10, exposedHeaders: "ETag" });
  });

  test("a number that is not one is reported with its variable", async () => {
    const message = await failure(
      resolveConfig({ metricsJitter: -1 }, { ...REQUIRED, SERVICE_FETCH_INTERVAL: "soon", PORT: "99999" }),
    );
    expect(message).toContain("refreshInterval (SERVICE_FETCH_INTERVAL)");
    expect(message).toContain("metricsJitter (SERVICE_METRICS_JITTER)");
    expect(message).toContain("PORT");
  });

  test("an unknown log level is reported", async () => {
    expect(await failure(resolveConfig({}, { ...REQUIRED, LOG_LEVEL: "loud" }))).toContain("LOG_LEVEL");
  });

  test("malformed tags are reported", async () => {
    expect(await failure(resolveConfig({}, { ...REQUIRED, SERVICE_TAGS: "novalue" }))).toContain(
      "SERVICE_TAGS",
    );
  });
});

describe("trustProxy", () => {
  test.each([
    ["false", false],
    ["true", true],
    ["10.0.0.1", ["10.0.0.1"]],
    ["10.0.0.0/8, ::1, loopback", ["10.0.0.0/8", "::1", "loopback"]],
  ])("TRUST_PROXY=%s", async (raw, expected) => {
    expect((await resolveConfig({}, { ...REQUIRED, TRUST_PROXY: raw })).trustProxy).toEqual(expected);
  });

  test("in code: a boolean, a string or a list", async () => {
    expect((await resolveConfig({ trustProxy: true }, REQUIRED)).trustProxy).toBe(true);
    expect((await resolveConfig({ trustProxy: "10.0.0.0/8,127.0.0.1" }, REQUIRED)).trustProxy).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
    ]);
    expect((await resolveConfig({ trustProxy: ["192.168.0.0/16"] }, REQUIRED)).trustProxy).toEqual([
      "192.168.0.0/16",
    ]);
  });

  test("anything else is refused", async () => {
    expect(await failure(resolveConfig({}, { ...REQUIRED, TRUST_PROXY: "10.0.0.0/99" }))).toContain(
      "TRUST_PROXY",
    );
    expect(await failure(resolveConfig({ trustProxy: "somewhere" }, REQUIRED))).toContain("somewhere");
  });
});

describe("script files", () => {
  test("custom strategies and enrichers load from the files the variables name", async () => {
    const folder = await mkdtemp(join(tmpdir(), "signalbox-proxy-config-"));
    const strategies = join(folder, "strategies.cjs");
    const enrichers = join(folder, "enrichers.mjs");
    await writeFile(strategies, "module.exports = [{ name: 'tenant', isEnabled: () => true }];");
    await writeFile(enrichers, "export default [async (context) => ({ ...context, userId: 'enriched' })];");
    const config = await resolveConfig(
      {},
      { ...REQUIRED, SERVICE_CUSTOM_STRATEGIES_FILE: strategies, EXP_CUSTOM_ENRICHERS_FILE: enrichers },
    );
    expect(config.customStrategies.map((strategy) => strategy.name)).toEqual(["tenant"]);
    expect(await config.expCustomEnrichers[0]!({})).toEqual({ userId: "enriched" });
  });

  test("a missing file or a wrong export is reported with the variable", async () => {
    const folder = await mkdtemp(join(tmpdir(), "signalbox-proxy-config-"));
    const notArray = join(folder, "object.mjs");
    await writeFile(notArray, "export default { name: 'x' };");
    const message = await failure(
      resolveConfig(
        {},
        {
          ...REQUIRED,
          SERVICE_CUSTOM_STRATEGIES_FILE: join(folder, "missing.js"),
          EXP_CUSTOM_ENRICHERS_FILE: notArray,
        },
      ),
    );
    expect(message).toContain("SERVICE_CUSTOM_STRATEGIES_FILE");
    expect(message).toContain("EXP_CUSTOM_ENRICHERS_FILE");
  });
});

describe("a drop-in for @unleash/proxy", () => {
  // Every variable @unleash/proxy 1.4.19 reads (dist/config.js, dist/server.js, and the
  // HTTP(S)_PROXY its README lists): each must mean something here.
  const REFERENCE_VARIABLES = [
    "UNLEASH_URL",
    "UNLEASH_API_TOKEN",
    "UNLEASH_PROXY_CLIENT_KEYS",
    "UNLEASH_PROXY_SECRETS",
    "UNLEASH_APP_NAME",
    "UNLEASH_INSTANCE_ID",
    "UNLEASH_FETCH_INTERVAL",
    "UNLEASH_METRICS_INTERVAL",
    "UNLEASH_METRICS_JITTER",
    "UNLEASH_ENVIRONMENT",
    "UNLEASH_PROJECT_NAME",
    "UNLEASH_NAME_PREFIX",
    "UNLEASH_TAGS",
    "UNLEASH_CUSTOM_STRATEGIES_FILE",
    "PORT",
    "PROXY_PORT",
    "PROXY_BASE_PATH",
    "LOG_LEVEL",
    "JSON_LOGGER",
    "TRUST_PROXY",
    "CLIENT_KEY_HEADER_NAME",
    "ENABLE_OAS",
    "ENABLE_ALL_ENDPOINT",
    "CORS_ORIGIN",
    "CORS_METHODS",
    "CORS_ALLOWED_HEADERS",
    "CORS_EXPOSED_HEADERS",
    "CORS_CREDENTIALS",
    "CORS_MAX_AGE",
    "CORS_PREFLIGHT_CONTINUE",
    "CORS_OPTIONS_SUCCESS_STATUS",
    "HTTP_OPTIONS_REJECT_UNAUTHORIZED",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "EXP_BOOTSTRAP_URL",
    "EXP_BOOTSTRAP_AUTHORIZATION",
    "EXP_SERVER_SIDE_SDK_CONFIG_TOKENS",
    "EXP_CUSTOM_ENRICHERS_FILE",
  ];

  test("every variable of the reference is read, under its own name or as an alias", () => {
    const read = new Set(
      Object.entries(VARIABLES).flatMap(([name, spec]) => ["alias" in spec ? spec.alias : undefined, name]),
    );
    expect(REFERENCE_VARIABLES.filter((name) => !read.has(name))).toEqual([]);
  });

  test("the UNLEASH_* variables set what their SERVICE_* names set, with one notice each", async () => {
    const folder = await mkdtemp(join(tmpdir(), "signalbox-proxy-config-"));
    const strategies = join(folder, "strategies.cjs");
    await writeFile(strategies, "module.exports = [{ name: 'tenant', isEnabled: () => true }];");
    const logger = recordingLogger();
    const reference: Environment = {
      UNLEASH_URL: "https://unleash.test/api/",
      UNLEASH_API_TOKEN: "reference-token",
      UNLEASH_PROXY_CLIENT_KEYS: "some-secret, other-secret",
      UNLEASH_APP_NAME: "edge-app",
      UNLEASH_INSTANCE_ID: "instance-1",
      UNLEASH_FETCH_INTERVAL: "1000",
      UNLEASH_METRICS_INTERVAL: "2000",
      UNLEASH_METRICS_JITTER: "300",
      UNLEASH_ENVIRONMENT: "production",
      UNLEASH_PROJECT_NAME: "web",
      UNLEASH_NAME_PREFIX: "web.",
      UNLEASH_TAGS: "team:checkout",
      UNLEASH_CUSTOM_STRATEGIES_FILE: strategies,
    };
    const config = await resolveConfig({ logger }, reference);
    expect(config).toMatchObject({
      serviceUrl: "https://unleash.test/api",
      serviceApiToken: "reference-token",
      clientKeys: ["some-secret", "other-secret"],
      serviceAppName: "edge-app",
      serviceInstanceId: "instance-1",
      refreshInterval: 1000,
      metricsInterval: 2000,
      metricsJitter: 300,
      environment: "production",
      projectName: "web",
      namePrefix: "web.",
      tags: [{ name: "team", value: "checkout" }],
    });
    expect(config.customStrategies.map((strategy) => strategy.name)).toEqual(["tenant"]);
    for (const alias of Object.keys(reference)) {
      const notices = logger.lines.filter((line) => line.message.includes(alias));
      const name = alias.replace("UNLEASH_", "SERVICE_");
      expect(notices, alias).toEqual([
        { level: "warn", message: `${alias} is read as ${name}, its Signalbox name` },
      ]);
    }
  });

  test("UNLEASH_PROXY_SECRETS stands in for the deprecated SERVICE_PROXY_SECRETS", async () => {
    const logger = recordingLogger();
    const config = await resolveConfig(
      { logger },
      { UNLEASH_URL: "http://u/api", UNLEASH_API_TOKEN: "t", UNLEASH_PROXY_SECRETS: "s" },
    );
    expect(config.clientKeys).toEqual(["s"]);
    expect(logger.has("warn", "UNLEASH_PROXY_SECRETS is read as SERVICE_PROXY_SECRETS")).toBe(true);
    expect(logger.has("warn", "proxySecrets (UNLEASH_PROXY_SECRETS) is deprecated")).toBe(true);
  });

  test("the Signalbox name wins when both are set, and the notice says the alias is ignored", async () => {
    const logger = recordingLogger();
    const config = await resolveConfig(
      { logger },
      { ...REQUIRED, UNLEASH_URL: "http://other.test/api", UNLEASH_FETCH_INTERVAL: "1" },
    );
    expect(config.serviceUrl).toBe("http://upstream.test/api");
    expect(config.refreshInterval).toBe(1);
    expect(logger.lines).toContainEqual({
      level: "warn",
      message: "UNLEASH_URL is ignored: SERVICE_URL is set as well and wins",
    });
    expect(logger.lines).toContainEqual({
      level: "warn",
      message: "UNLEASH_FETCH_INTERVAL is read as SERVICE_FETCH_INTERVAL, its Signalbox name",
    });
  });

  test("Unleash Edge's names are read too, converted where Edge counts in seconds or asks the opposite", async () => {
    const logger = recordingLogger();
    const config = await resolveConfig(
      { logger },
      {
        UPSTREAM_URL: "http://unleash.test:4242/",
        TOKENS: "*:development.a,*:production.b",
        FEATURES_REFRESH_INTERVAL_SECONDS: "15",
        METRICS_INTERVAL_SECONDS: "60",
        TOKEN_REVALIDATION_INTERVAL_SECONDS: "3600",
        SKIP_SSL_VERIFICATION: "true",
        INTERFACE: "127.0.0.1",
        SERVICE_API_TOKEN: "t",
        SERVICE_PROXY_CLIENT_KEYS: "k",
      },
    );
    expect(config).toMatchObject({
      serviceUrl: "http://unleash.test:4242/api",
      edgeTokens: ["*:development.a", "*:production.b"],
      refreshInterval: 15_000,
      metricsInterval: 60_000,
      tokenRevalidationInterval: 3_600_000,
      httpOptions: { rejectUnauthorized: false },
      host: "127.0.0.1",
    });
    expect(logger.has("warn", "UPSTREAM_URL (Unleash Edge's name) is read as SERVICE_URL")).toBe(true);
    const invalid = await failure(
      resolveConfig({}, { ...REQUIRED, FEATURES_REFRESH_INTERVAL_SECONDS: "soon" }),
    );
    expect(invalid).toContain("refreshInterval (FEATURES_REFRESH_INTERVAL_SECONDS) must be a whole number");
  });

  test("offline mode needs no flag service: only the file and the tokens", async () => {
    const config = await resolveConfig(
      { logger: recordingLogger() },
      { BOOTSTRAP_FILE: "features.json", CLIENT_TOKENS: "a,b", FRONTEND_TOKENS: "c", RELOAD_INTERVAL: "5" },
    );
    expect(config.offline).toEqual({
      bootstrapFile: resolve("features.json"),
      clientTokens: ["a", "b"],
      frontendTokens: ["c"],
      reloadInterval: 5000,
    });
    expect(config.clientKeys).toEqual([]);
  });

  test("errors name the variable the operator wrote, and missing ones both names", async () => {
    const invalid = await failure(resolveConfig({}, { ...REQUIRED, UNLEASH_FETCH_INTERVAL: "soon" }));
    expect(invalid).toContain("refreshInterval (UNLEASH_FETCH_INTERVAL) must be a whole number");
    const missing = await failure(resolveConfig({}, {}));
    expect(missing).toContain(
      "serviceUrl is required: set SERVICE_URL (or UNLEASH_URL) or the serviceUrl option",
    );
  });

  test("createApp's option names are read as Signalbox's, with one notice each", async () => {
    const logger = recordingLogger();
    const config = await resolveConfig(
      {
        unleashUrl: "http://reference.test/api",
        unleashApiToken: "reference-token",
        unleashAppName: "reference-app",
        unleashInstanceId: "reference-instance",
        serviceInstanceId: "signalbox-instance",
        clientKeys: ["k"],
        logger,
      },
      {},
    );
    expect(config).toMatchObject({
      serviceUrl: "http://reference.test/api",
      serviceApiToken: "reference-token",
      serviceAppName: "reference-app",
      serviceInstanceId: "signalbox-instance",
    });
    expect(logger.lines.filter((line) => line.message.startsWith("the option "))).toEqual([
      { level: "warn", message: "the option unleashUrl is read as serviceUrl, its Signalbox name" },
      { level: "warn", message: "the option unleashApiToken is read as serviceApiToken, its Signalbox name" },
      { level: "warn", message: "the option unleashAppName is read as serviceAppName, its Signalbox name" },
      {
        level: "warn",
        message: "the option unleashInstanceId is ignored: serviceInstanceId is set as well and wins",
      },
    ]);
  });

  test("an Express preHook is refused rather than silently left out", async () => {
    const options = { preHook: () => {} } as ProxyOptions;
    expect(await failure(resolveConfig(options, REQUIRED))).toContain("preHook");
  });

  test("outgoing proxies are http or https URLs", async () => {
    const message = await failure(
      resolveConfig(
        {},
        { ...REQUIRED, HTTP_PROXY: "proxy.test:3128", HTTPS_PROXY: "socks5://proxy.test:1080" },
      ),
    );
    expect(message).toContain("HTTP_PROXY must be an http:// or https:// proxy URL such as");
    expect(message).toContain('got "socks5://proxy.test:1080"');
  });

  test("every problem is reported in one line", async () => {
    const message = await failure(resolveConfig({}, { LOG_LEVEL: "loud", TRUST_PROXY: "nowhere" }));
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(/^invalid configuration: .*LOG_LEVEL.*; .*TRUST_PROXY/);
  });
});

describe("log format", () => {
  async function firstLine(env: Environment, options: ProxyOptions = {}): Promise<string> {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const config = await resolveConfig(options, { ...REQUIRED, LOG_LEVEL: "info", ...env });
    config.logger.info("hello");
    vi.restoreAllMocks();
    return lines[0]!;
  }
  const json = /^\{"level":"info","time":"[^"]+","name":"signalbox-proxy","msg":"hello"\}\n$/;
  const pretty = /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO hello\n$/;

  test("JSON when stdout is not a terminal, pretty when it is", async () => {
    const original = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");
    const attached = (isTTY: boolean) =>
      Object.defineProperty(process.stdout, "isTTY", { value: isTTY, configurable: true });
    try {
      attached(false);
      expect(await firstLine({})).toMatch(json);
      attached(true);
      expect(await firstLine({})).toMatch(pretty);
    } finally {
      if (original) Object.defineProperty(process.stdout, "isTTY", original);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
  });

  test("LOG_FORMAT chooses; JSON_LOGGER is read when it is unset", async () => {
    expect(await firstLine({ LOG_FORMAT: "pretty" })).toMatch(pretty);
    expect(await firstLine({ LOG_FORMAT: "JSON", JSON_LOGGER: "false" })).toMatch(json);
    expect(await firstLine({ JSON_LOGGER: "false" })).toMatch(pretty);
    expect(await firstLine({ JSON_LOGGER: "true" })).toMatch(json);
    expect(await firstLine({}, { logFormat: "pretty", useJsonLogger: true })).toMatch(pretty);
    expect(await failure(resolveConfig({}, { ...REQUIRED, LOG_FORMAT: "xml" }))).toContain("LOG_FORMAT");
  });
});

describe("backup folder", () => {
  test("none when embedded, ./data/proxy for the command, BACKUP_DIR or backupDir otherwise, off by name", async () => {
    expect((await resolveConfig({}, REQUIRED)).backupDir).toBeUndefined();
    const standalone = await resolveConfig({}, REQUIRED, { standalone: true });
    expect(standalone.backupDir).toBe(resolve("data/proxy"));
    expect(standalone.storageProvider).toBeInstanceOf(FileStorageProvider);
    const folder = await mkdtemp(join(tmpdir(), "signalbox-proxy-backup-"));
    expect((await resolveConfig({}, { ...REQUIRED, BACKUP_DIR: folder })).backupDir).toBe(folder);
    expect((await resolveConfig({ backupDir: folder }, REQUIRED)).backupDir).toBe(folder);
    const off = await resolveConfig({}, { ...REQUIRED, BACKUP_DIR: "off" }, { standalone: true });
    expect(off.backupDir).toBeUndefined();
    expect(off.storageProvider).toBeUndefined();
    expect(
      (await resolveConfig({ backupDir: false }, REQUIRED, { standalone: true })).backupDir,
    ).toBeUndefined();
  });

  test("a folder that cannot be made stops start-up, naming BACKUP_DIR and the ways out", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "signalbox-proxy-backup-")), "a-file");
    await writeFile(file, "");
    const message = await failure(resolveConfig({}, { ...REQUIRED, BACKUP_DIR: join(file, "backups") }));
    expect(message).toContain(`backupDir (BACKUP_DIR) ${join(file, "backups")} cannot be written`);
    expect(message).toContain("BACKUP_DIR=off");
  });

  test("a storageProvider replaces the file and is asked under the app name", async () => {
    const storage = { set: async () => {}, get: async () => undefined };
    const config = await resolveConfig({ storageProvider: storage, backupDir: "/nowhere" }, REQUIRED);
    expect(config.storageProvider).toBe(storage);
    expect(config.storageKey).toBe("service-proxy");
    expect(config.backupDir).toBeUndefined();
  });

  test("the file's key changes with what the upstream would send, so proxies never share one", async () => {
    const keyOf = async (env: Environment) => (await resolveConfig({}, { ...REQUIRED, ...env })).storageKey;
    const base = await keyOf({});
    expect(base).toMatch(/^service-proxy-[0-9a-f]{12}$/);
    expect(await keyOf({})).toBe(base);
    for (const env of [
      { SERVICE_API_TOKEN: "other" },
      { SERVICE_URL: "http://other.test/api" },
      { SERVICE_PROJECT_NAME: "web" },
      { SERVICE_NAME_PREFIX: "web." },
      { SERVICE_TAGS: "team:a" },
    ]) {
      expect(await keyOf(env), JSON.stringify(env)).not.toBe(base);
    }
  });
});
