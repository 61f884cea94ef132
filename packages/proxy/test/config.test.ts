import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, type Environment, resolveConfig } from "../src/index.js";
import { recordingLogger } from "./support/fixtures.js";

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
