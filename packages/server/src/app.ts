import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyPluginAsync, LogController, type RouteOptions } from "fastify";
import type { Config } from "./config.js";
import type { Db } from "./db/connection.js";
import { clientApiRoutes } from "./domains/client-api/routes.js";
import { ClientFeaturesService } from "./domains/client-api/service.js";
import { contextFieldRoutes } from "./domains/context-fields/routes.js";
import { ContextFieldService } from "./domains/context-fields/service.js";
import { environmentRoutes } from "./domains/environments/routes.js";
import { EnvironmentService } from "./domains/environments/service.js";
import { eventRoutes } from "./domains/events/routes.js";
import { EventService } from "./domains/events/service.js";
import { DependencyService } from "./domains/features/dependencies.js";
import { featureRoutes } from "./domains/features/routes.js";
import { FeatureService } from "./domains/features/service.js";
import { StrategyService } from "./domains/features/strategies.js";
import { FeatureTagService } from "./domains/features/tags.js";
import { frontendRoutes } from "./domains/frontend-api/routes.js";
import { FrontendService } from "./domains/frontend-api/service.js";
import { metricsRoutes } from "./domains/metrics/routes.js";
import { MetricsService } from "./domains/metrics/service.js";
import { projectRoutes } from "./domains/projects/routes.js";
import { ProjectService } from "./domains/projects/service.js";
import { segmentRoutes } from "./domains/segments/routes.js";
import { SegmentService } from "./domains/segments/service.js";
import { strategyDefinitionRoutes } from "./domains/strategy-definitions/routes.js";
import { StrategyDefinitionService } from "./domains/strategy-definitions/service.js";
import { tagTypeRoutes } from "./domains/tag-types/routes.js";
import { TagTypeService } from "./domains/tag-types/service.js";
import { tokenRoutes } from "./domains/tokens/routes.js";
import { TokenService } from "./domains/tokens/service.js";
import type { App } from "./http/app-type.js";
import { authenticate } from "./http/auth.js";
import { handleError, handleNotFound } from "./http/error-handler.js";
import { boundRouteIntegers, refuseUnstorableText } from "./http/input-guard.js";
import { markDocumentationPublic, registerOpenApi } from "./http/openapi.js";
import { loggerOptions } from "./logging.js";

/** Every service of the flag service, wired to one database. */
export function createServices(db: Db) {
  const events = new EventService(db);
  const tokens = new TokenService(db, events);
  const clientFeatures = new ClientFeaturesService(db, events);
  const frontend = new FrontendService(clientFeatures);
  const metrics = new MetricsService(db, events);
  const environments = new EnvironmentService(db, events);
  const projects = new ProjectService(db, events, environments);
  const segments = new SegmentService(db, events, projects);
  const contextFields = new ContextFieldService(db, events);
  const tagTypes = new TagTypeService(db, events);
  const strategyDefinitions = new StrategyDefinitionService(db, events);
  const featureTags = new FeatureTagService(db, events, tagTypes);
  const features = new FeatureService(db, events, projects, featureTags);
  const strategies = new StrategyService(db, events, projects, {
    segments,
    definitions: strategyDefinitions,
  });
  const dependencies = new DependencyService(db, events);
  return {
    events,
    tokens,
    clientFeatures,
    frontend,
    metrics,
    environments,
    projects,
    segments,
    contextFields,
    tagTypes,
    strategyDefinitions,
    featureTags,
    features,
    strategies,
    dependencies,
  };
}

export type Services = ReturnType<typeof createServices>;

/** Builds the HTTP app from a configuration and a database; it holds no globals. */
export interface BuildOptions {
  services?: Services;
  /** Plugins registered before the routes, so their hooks see every request (tests use this). */
  plugins?: FastifyPluginAsync[];
}

export async function buildApp(config: Config, db: Db, options: BuildOptions = {}) {
  const services = options.services ?? createServices(db);
  const app: App = Fastify({
    logger: config.logLevel === "silent" ? false : loggerOptions(config.logLevel, config.logFormat),
    bodyLimit: config.bodyLimit,
    // SDKs poll every few seconds: a log line per request would drown everything else.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are JSON only: anything else is answered 415 before a handler runs.
  app.removeContentTypeParser("text/plain");
  // Scripts often send `content-type: application/json` with no body on POST …/on and
  // the like: an empty body is no body, not a JSON error.
  const json = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) =>
    body === "" ? done(null, undefined) : json(request, String(body), done),
  );
  app.decorateRequest("actor", undefined as never);
  // The route table, as declared: what the fuzz test and API documentation are built from.
  const routes: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    markDocumentationPublic(route);
    boundRouteIntegers(route);
    routes.push(route);
  });
  app.addHook("preValidation", refuseUnstorableText);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.addHook(
    "onRequest",
    authenticate((secret) => services.tokens.resolve(secret)),
  );

  await registerOpenApi(app);
  for (const plugin of options.plugins ?? []) await app.register(plugin);

  app.get("/health", { config: { auth: "public" } }, async () => ({ health: "GOOD" }));
  eventRoutes(app, services.events);
  tokenRoutes(app, services.tokens);
  clientApiRoutes(app, services.clientFeatures);
  frontendRoutes(app, services.frontend, services.metrics, config.frontendCorsOrigins);
  metricsRoutes(app, services.metrics);
  environmentRoutes(app, services.environments);
  projectRoutes(app, services.projects);
  segmentRoutes(app, services.segments);
  contextFieldRoutes(app, services.contextFields);
  tagTypeRoutes(app, services.tagTypes);
  strategyDefinitionRoutes(app, services.strategyDefinitions);
  featureRoutes(app, {
    features: services.features,
    strategies: services.strategies,
    tags: services.featureTags,
    dependencies: services.dependencies,
  });

  await app.ready();
  return { app, services, routes };
}
