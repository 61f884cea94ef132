import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "@fastify/cors";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { BUILT_IN_STRATEGIES } from "@signalbox/engine";
import { ERRORS } from "@signalbox/protocol";
import Fastify from "fastify";
import { parseJsonBody } from "./body.js";
import { ReportBudget } from "./budget.js";
import { type Environment, type ProxyConfig, type ProxyOptions, resolveConfig } from "./config.js";
import { Forwarder } from "./edge/forward.js";
import { type EdgeRouteDependencies, edgeRoutes } from "./edge/routes.js";
import { Scopes, upstreamSource } from "./edge/scopes.js";
import { EdgeStreams } from "./edge/streams.js";
import { type TokenCheck, TokenValidator } from "./edge/tokens.js";
import { errorHandler } from "./errors.js";
import { Evaluations } from "./evaluation.js";
import { createGuard } from "./guard.js";
import { ImpactMetricsAggregator } from "./impact-metrics.js";
import { UsageMetrics } from "./metrics.js";
import { OFFLINE_ENVIRONMENT, OfflineSource, OfflineTokens } from "./offline.js";
import { OfrepChanges } from "./ofrep-changes.js";
import { ofrepRoutes } from "./ofrep-routes.js";
import { Outbound } from "./outbound.js";
import { OperationalMetrics } from "./prometheus.js";
import { parseQuery } from "./querystring.js";
import { ClientRegistrations } from "./registrations.js";
import { UsageReporter } from "./reporter.js";
import { type App, proxyRoutes, type RouteDependencies } from "./routes.js";
import type { ConfigSource } from "./source.js";
import { FeatureSync, type SyncObserver } from "./sync.js";
import { Upstream } from "./upstream.js";
import { PROXY_VERSION } from "./version.js";

/** How long closing waits for the last usage metrics to leave. */
const FINAL_FLUSH_MS = 2000;
/** How long an SDK's first request for a scope waits for its configuration to arrive. */
const FIRST_FETCH_MS = 10_000;
/** How long a secret the flag service refused is refused without asking again. */
const REFUSED_MS = 10_000;
/** Comments on idle streams, as the flag service sends them; also when their tokens are checked again. */
const KEEP_ALIVE_MS = 30_000;

export interface ListenOptions {
  /** Defaults to PORT, then PROXY_PORT, then 3000. */
  port?: number;
  /** Defaults to HOST, then 0.0.0.0 (every IPv4 interface). */
  host?: string;
}

export interface SignalboxProxy {
  /** The Fastify app, ready; `app.inject` calls it without a socket. */
  readonly app: App;
  readonly config: ProxyConfig;
  /** A Node request listener, for hosts that mount the proxy in their own HTTP server. */
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  /** Settles once the proxy has a configuration (from upstream, storage or bootstrap). */
  readonly ready: Promise<void>;
  /** Listens for HTTP and resolves to the address, e.g. `http://127.0.0.1:3000`. */
  listen(options?: ListenOptions): Promise<string>;
  /** Stops polling, finishes saving the configuration, sends the usage counted so far, and closes the server. */
  close(): Promise<void>;
}

/** The HTTP side: parsers, error mapping, CORS, the guard, the routes and their OpenAPI document. */
async function buildApp(
  config: ProxyConfig,
  sync: ConfigSource,
  deps: Omit<RouteDependencies, "config">,
  edge: Omit<EdgeRouteDependencies, "basePath">,
  ofrepChanges: OfrepChanges,
): Promise<App> {
  const app: App = Fastify({
    logger: false,
    trustProxy: config.trustProxy,
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true },
    // Scalars become strings as the schemas ask, but a scalar never becomes an array.
    ajv: { customOptions: { coerceTypes: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, parseJsonBody);
  app.setErrorHandler(errorHandler(config.logger));
  await app.register(cors, { ...config.cors, strictPreflight: false });
  // Before the body is read and before readiness and keys are checked: a path that does not
  // exist is 404 for everyone, not a 503, 401 or 400 that sends the caller after the wrong problem.
  const routes = `${config.proxyBasePath}/proxy, those for the flag service's tokens with ${config.proxyBasePath}/api/client and ${config.proxyBasePath}/api/frontend, and OpenFeature's with ${config.proxyBasePath}/ofrep/v1`;
  app.addHook("onRequest", (request, reply, done) => {
    if (!request.is404) return done();
    const path = request.url.split("?")[0];
    reply
      .code(ERRORS.NotFoundError)
      .send({ error: `Not found: ${request.method} ${path}. The proxy's routes start with ${routes}.` });
  });
  const guard = createGuard({
    isReady: () => sync.snapshot !== undefined,
    clientKeys: config.clientKeys,
    serverTokens: config.expServerSideSdkConfig.tokens,
    clientKeysHeaderName: config.clientKeysHeaderName,
  });
  // Every route declared from here on (the documentation's too) gets the guard for its access
  // as its first preHandler: the same as one global hook, without reading the route's options
  // on every request.
  app.addHook("onRoute", (route) => {
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [guard(route.config?.access ?? "public"), ...own];
  });
  if (config.enableOAS) {
    // Loaded only when asked for: the documentation's plugins are of no use to a proxy without it.
    const { registerOpenApi } = await import("./openapi.js");
    await registerOpenApi(app, {
      version: PROXY_VERSION,
      clientKeysHeaderName: config.clientKeysHeaderName,
      basePath: config.proxyBasePath,
    });
  }
  proxyRoutes(app, { ...deps, config });
  edgeRoutes(app, { ...edge, basePath: config.proxyBasePath });
  ofrepRoutes(app, { basePath: config.proxyBasePath, evaluations: deps.evaluations, changes: ofrepChanges });
  await app.ready();
  return app;
}

/**
 * Builds a proxy from the in-code options (falling back to the environment variables, then
 * to the defaults) and starts synchronising with the upstream service at once.
 * Throws a ConfigError naming every option that is missing or invalid.
 */
export async function createProxy(
  options: ProxyOptions = {},
  env: Environment = process.env,
): Promise<SignalboxProxy> {
  return proxyFor(await resolveConfig(options, env));
}

/** A proxy for a configuration already resolved; it starts synchronising at once. */
export async function proxyFor(config: ProxyConfig): Promise<SignalboxProxy> {
  const outbound = new Outbound({
    rejectUnauthorized: config.httpOptions.rejectUnauthorized,
    httpProxy: config.httpProxy,
    httpsProxy: config.httpsProxy,
    noProxy: config.noProxy,
  });
  const connectionId = randomUUID();
  const upstream = new Upstream({ ...config, connectionId }, outbound);
  const operational = new OperationalMetrics();
  const ofrepChanges = new OfrepChanges({
    maxStreams: config.streamingMaxConnections,
    keepAliveMs: KEEP_ALIVE_MS,
  });
  // The proxy's own configuration: counted, and announced to OpenFeature's change streams.
  const followed: SyncObserver = {
    fetched: () => operational.fetched(),
    updated: () => {
      operational.updated();
      ofrepChanges.changed();
    },
  };
  const compileOptions = { strategies: config.customStrategies, hostname: config.hostname };
  const { offline } = config;
  const fromFile = (observer: SyncObserver) =>
    new OfflineSource({
      file: offline!.bootstrapFile,
      reloadMs: offline!.reloadInterval,
      compileOptions,
      logger: config.logger,
      observer,
    });
  // How configurations are followed upstream, for the proxy's own token and for each scope of the /api routes.
  const following = {
    outbound,
    compileOptions,
    refreshInterval: config.refreshInterval,
    streaming: config.streaming,
    streamRetryMs: config.streamRetryInterval,
    storage: config.storageProvider,
    storageKey: config.storageKey,
    logger: config.logger,
  };
  const sync: ConfigSource = offline
    ? fromFile(followed)
    : new FeatureSync({ ...following, upstream, bootstrap: config.expBootstrap, observer: followed });
  const budget = new ReportBudget({ logger: config.logger, observer: operational });
  const usage = new UsageMetrics(budget);
  const impact = new ImpactMetricsAggregator(budget);
  const registrations = new ClientRegistrations(budget);
  const reporter = new UsageReporter({
    upstream,
    usage,
    impact,
    registrations,
    appName: config.serviceAppName,
    instanceId: config.serviceInstanceId,
    connectionId,
    strategies: [...BUILT_IN_STRATEGIES, ...config.customStrategies.map((strategy) => strategy.name)],
    metricsInterval: config.metricsInterval,
    metricsJitter: config.metricsJitter,
    logger: config.logger,
    observer: operational,
  });

  const evaluations = new Evaluations(
    sync,
    usage,
    { appName: config.serviceAppName, environment: config.environment },
    config.expCustomEnrichers,
  );
  const validator: TokenCheck = offline
    ? new OfflineTokens(offline.clientTokens, offline.frontendTokens)
    : new TokenValidator(
        {
          serviceUrl: config.serviceUrl,
          headers: { "user-agent": config.serviceAppName, "unleash-appname": config.serviceAppName },
          revalidateMs: config.tokenRevalidationInterval,
          refusedMs: REFUSED_MS,
        },
        outbound,
      );
  const scopes = new Scopes({
    compileOptions,
    observer: operational,
    source: offline
      ? (_secret, _label, _key, observer) => fromFile(observer)
      : upstreamSource({ ...following, upstream: { ...config, connectionId } }),
  });
  const streams = new EdgeStreams(validator, {
    maxStreams: config.streamingMaxConnections,
    keepAliveMs: KEEP_ALIVE_MS,
  });
  // Offline, SDKs' reports have nowhere to go: they are taken and dropped, as Unleash Edge does.
  const forwarder = offline
    ? undefined
    : new Forwarder({
        serviceUrl: config.serviceUrl,
        outbound,
        budget,
        interval: config.metricsInterval,
        logger: config.logger,
        observer: operational,
      });
  const app = await buildApp(
    config,
    sync,
    { evaluations, usage, impact, registrations, operational },
    {
      validator,
      scopes,
      streams,
      forwarder,
      impact: offline ? undefined : impact,
      firstFetchMs: FIRST_FETCH_MS,
    },
    ofrepChanges,
  );

  sync.start();
  if (offline) {
    // Every offline token reads the one file: its scope is there from the start.
    scopes.forClient({ secret: "", kind: "client", environment: OFFLINE_ENVIRONMENT, projects: ["*"] });
  } else {
    reporter.start();
    void followConfiguredTokens(config, validator, scopes);
  }

  return {
    app,
    config,
    handler: (request, response) => app.routing(request, response),
    ready: sync.ready,
    async listen({ port = config.port, host = config.host } = {}) {
      return app.listen({ port, host });
    },
    async close() {
      streams.close();
      ofrepChanges.close();
      await Promise.all([sync.stop(), scopes.stop()]);
      await Promise.race([
        offline ? Promise.resolve() : Promise.all([reporter.stop(), forwarder?.flush()]),
        new Promise((resolve) => setTimeout(resolve, FINAL_FLUSH_MS).unref()),
      ]);
      await app.close();
      await outbound.close();
    },
  };
}

/** The configured client tokens' scopes are followed from the start, not from their first SDK. */
async function followConfiguredTokens(config: ProxyConfig, validator: TokenCheck, scopes: Scopes) {
  for (const secret of config.edgeTokens) {
    const validation = await validator.validate(secret);
    if (validation.outcome === "valid" && validation.token.kind === "client")
      scopes.forClient(validation.token);
    else {
      const why =
        validation.outcome === "unknown"
          ? `cannot be checked (${validation.reason})`
          : "is not a client token the flag service knows";
      config.logger.error(`A token of edgeTokens (TOKENS) ${why}; it is followed once an SDK presents it`);
    }
  }
}
