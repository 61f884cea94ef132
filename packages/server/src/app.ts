import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyPluginAsync, LogController, type RouteOptions } from "fastify";
import { Type } from "typebox";
import { type Config, defaultConfig } from "./config.js";
import type { Db } from "./db/connection.js";
import { GrantsService } from "./domains/access/grants/service.js";
import { groupRoutes } from "./domains/access/groups/routes.js";
import { GroupService } from "./domains/access/groups/service.js";
import { memberRoutes } from "./domains/access/members/routes.js";
import { MemberService } from "./domains/access/members/service.js";
import { roleRoutes } from "./domains/access/roles/routes.js";
import { RoleService } from "./domains/access/roles/service.js";
import { addonRoutes } from "./domains/addons/routes.js";
import { AddonService } from "./domains/addons/service.js";
import { changeRequestRoutes, changeRequestSearchRoutes } from "./domains/change-requests/routes.js";
import { ChangeRequestScheduler } from "./domains/change-requests/scheduler.js";
import { ChangeRequestService } from "./domains/change-requests/service.js";
import { clientApiRoutes } from "./domains/client-api/routes.js";
import { ClientFeaturesService } from "./domains/client-api/service.js";
import { contextFieldRoutes } from "./domains/context-fields/routes.js";
import { ContextFieldService } from "./domains/context-fields/service.js";
import { environmentRoutes } from "./domains/environments/routes.js";
import { EnvironmentService } from "./domains/environments/service.js";
import { eventRoutes } from "./domains/events/routes.js";
import { EventService } from "./domains/events/service.js";
import { favoriteRoutes } from "./domains/favorites/routes.js";
import { FavoriteService } from "./domains/favorites/service.js";
import { dependencyRoutes } from "./domains/features/dependencies/routes.js";
import { DependencyService } from "./domains/features/dependencies/service.js";
import { flagRoutes } from "./domains/features/flags/routes.js";
import { FlagService } from "./domains/features/flags/service.js";
import { lifecycleRoutes } from "./domains/features/lifecycle/routes.js";
import { LifecycleService } from "./domains/features/lifecycle/service.js";
import { strategyRoutes } from "./domains/features/strategies/routes.js";
import { StrategyService } from "./domains/features/strategies/service.js";
import { featureTagRoutes } from "./domains/features/tags/routes.js";
import { FeatureTagService } from "./domains/features/tags/service.js";
import { variantRoutes } from "./domains/features/variants/routes.js";
import { VariantService } from "./domains/features/variants/service.js";
import { frontendRoutes } from "./domains/frontend-api/routes.js";
import { FrontendService } from "./domains/frontend-api/service.js";
import { importExportRoutes } from "./domains/import-export/routes.js";
import { ImportExportService } from "./domains/import-export/service.js";
import { insightRoutes } from "./domains/insights/routes.js";
import { InsightsService } from "./domains/insights/service.js";
import { StalenessJob } from "./domains/insights/staleness.js";
import { applicationRoutes, flagUsageRoutes, usageRoutes } from "./domains/metrics/routes.js";
import { MetricsService } from "./domains/metrics/service.js";
import { personalTokenRoutes, serviceAccountTokenRoutes } from "./domains/personal-tokens/routes.js";
import { PersonalTokenService } from "./domains/personal-tokens/service.js";
import { playgroundRoutes } from "./domains/playground/routes.js";
import { PlaygroundService } from "./domains/playground/service.js";
import { DefaultStrategyService } from "./domains/projects/default-strategy.js";
import { projectRoutes } from "./domains/projects/routes.js";
import { ProjectService } from "./domains/projects/service.js";
import { segmentRoutes } from "./domains/segments/routes.js";
import { SegmentService } from "./domains/segments/service.js";
import { serviceAccountRoutes } from "./domains/service-accounts/routes.js";
import { loginRoutes, logoutRoutes } from "./domains/sessions/routes.js";
import { SessionService } from "./domains/sessions/service.js";
import { ssoLoginRoutes, ssoSettingsRoutes } from "./domains/sso/routes.js";
import { SsoService } from "./domains/sso/service.js";
import { strategyDefinitionRoutes } from "./domains/strategy-definitions/routes.js";
import { StrategyDefinitionService } from "./domains/strategy-definitions/service.js";
import { tagTypeRoutes } from "./domains/tag-types/routes.js";
import { TagTypeService } from "./domains/tag-types/service.js";
import { tokenRoutes } from "./domains/tokens/routes.js";
import { TokenService } from "./domains/tokens/service.js";
import { currentUserRoutes, passwordResetRoutes, userAdminRoutes } from "./domains/users/routes.js";
import { UserService } from "./domains/users/service.js";
import type { App } from "./http/app-type.js";
import { authenticate, requireDeclaredPermission } from "./http/auth.js";
import { handleError, handleNotFound } from "./http/error-handler.js";
import { boundRouteIntegers, refuseUnstorableText } from "./http/input-guard.js";
import { markDocumentationPublic, registerOpenApi } from "./http/openapi.js";
import { prometheusRoutes } from "./http/prometheus.js";
import { registerSecurityHeaders } from "./http/security-headers.js";
import { registerWebUi } from "./http/web-ui.js";
import { loggerOptions } from "./logging.js";
import { type PoolStats, Telemetry } from "./telemetry.js";

/** Every service of the flag service, wired to one database. */
export function createServices(
  db: Db,
  telemetry = new Telemetry(),
  settings: Pick<Config, "sessionTtlHours" | "loginFailuresPerMinute" | "integrations"> = defaultConfig(),
) {
  const events = new EventService(db, telemetry);
  const clientFeatures = new ClientFeaturesService(db, events, telemetry);
  const frontend = new FrontendService(clientFeatures);
  const environments = new EnvironmentService(db, events);
  // A project's flags live in it: projects reach them when asked, as flags ask projects too.
  const projects = new ProjectService(
    db,
    events,
    environments,
    () => flags,
    () => ({ members, favorites }),
    () => changeRequests,
    () => insights,
  );
  // Roles ask who holds them before one is deleted; groups and members ask roles what can be given.
  const roles = new RoleService(db, events, environments, () => ({ users, groups, members }));
  const grants = new GrantsService(db, events, projects);
  // Users end sessions when a password or access changes; sessions ask users who they are.
  const users = new UserService(db, events, { grants, environments, roles, sessions: () => sessions });
  const groups = new GroupService(db, events, roles, users, () => members);
  const members = new MemberService(db, events, projects, roles, groups, users);
  const tokens = new TokenService(db, events, environments, projects);
  const sessions = new SessionService(db, events, users, {
    ttlHours: settings.sessionTtlHours,
    failuresPerMinute: settings.loginFailuresPerMinute,
  });
  const sso = new SsoService(db, events, users, sessions);
  const personalTokens = new PersonalTokenService(db, events, users);
  const segments = new SegmentService(db, events, projects, () => strategies);
  const contextFields = new ContextFieldService(db, events);
  const tagTypes = new TagTypeService(db, events);
  const strategyDefinitions = new StrategyDefinitionService(db, events);
  // The flag sub-domains ask flags about the flag they work on; flags reach them when asked.
  const flags = new FlagService(db, events, projects, () => ({
    strategies,
    tags: featureTags,
    dependencies,
    lifecycle,
    favorites,
    segments,
  }));
  const strategies = new StrategyService(db, events, flags, {
    projects,
    segments,
    definitions: strategyDefinitions,
  });
  const defaultStrategies = new DefaultStrategyService(events, { projects, strategies, segments });
  const variants = new VariantService(db, events, flags, projects);
  const featureTags = new FeatureTagService(db, events, flags, tagTypes);
  const dependencies = new DependencyService(db, events, flags);
  const lifecycle = new LifecycleService(db, events, flags);
  const metrics = new MetricsService(db, events, { flags, lifecycle, environments, strategyDefinitions });
  const favorites = new FavoriteService(db, events, { flags, projects });
  const playground = new PlaygroundService(db, clientFeatures, strategies);
  const insights = new InsightsService(db, { projects, flags });
  const staleness = new StalenessJob(events, flags);
  const changeRequests = new ChangeRequestService(db, events, {
    projects,
    environments,
    users,
    targets: () => ({ flags, strategies, variants, dependencies, segments }),
  });
  const changeRequestScheduler = new ChangeRequestScheduler(changeRequests, events.outbox, events);
  const addons = new AddonService(db, events, { tagTypes, projects }, settings.integrations);
  const importExport = new ImportExportService(db, events, {
    flags,
    strategies,
    variants,
    featureTags,
    tagTypes,
    contextFields,
    dependencies,
    segments,
    definitions: strategyDefinitions,
    projects,
    environments,
    changeRequests,
  });
  return {
    telemetry,
    events,
    tokens,
    grants,
    roles,
    groups,
    members,
    users,
    sessions,
    sso,
    personalTokens,
    favorites,
    playground,
    changeRequests,
    changeRequestScheduler,
    insights,
    staleness,
    addons,
    importExport,
    clientFeatures,
    frontend,
    metrics,
    environments,
    projects,
    defaultStrategies,
    segments,
    contextFields,
    tagTypes,
    strategyDefinitions,
    flags,
    strategies,
    variants,
    featureTags,
    dependencies,
    lifecycle,
  };
}

export type Services = ReturnType<typeof createServices>;

/** Builds the HTTP app from a configuration and a database; it holds no globals. */
export interface BuildOptions {
  services?: Services;
  /** Plugins registered before the routes, so their hooks see every request (tests use this). */
  plugins?: FastifyPluginAsync[];
  /** The database pool's occupancy, for the Prometheus endpoint. */
  pool?: () => PoolStats;
}

export async function buildApp(config: Config, db: Db, options: BuildOptions = {}) {
  const services = options.services ?? createServices(db, undefined, config);
  const app: App = Fastify({
    logger: config.logLevel === "silent" ? false : loggerOptions(config.logLevel, config.logFormat),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
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
    requireDeclaredPermission(route);
    boundRouteIntegers(route);
    routes.push(route);
  });
  app.addHook("preValidation", refuseUnstorableText);
  app.setErrorHandler(handleError);
  // Before authentication, whose refusals end a request's onRequest hooks.
  registerSecurityHeaders(app);
  app.addHook(
    "onRequest",
    authenticate({
      // `user:` marks a personal access token, but is also how an API token of a project
      // named "user" begins: such a secret is an API token when it is no personal one.
      bearer: async (secret) =>
        (secret.startsWith("user:") && (await services.personalTokens.resolve(secret))) ||
        services.tokens.resolve(secret),
      session: (id) => services.sessions.resolve(id),
      loginOptions: () => services.sso.loginOptions(),
    }),
  );

  await registerOpenApi(app);
  const ui = await registerWebUi(app, config.uiDir);
  app.setNotFoundHandler((request, reply) =>
    ui?.page(request, reply) ? reply : handleNotFound(request, reply),
  );
  for (const plugin of options.plugins ?? []) await app.register(plugin);
  if (options.pool) services.telemetry.watchPool(options.pool);
  services.telemetry.watchOutbox(() => services.events.outbox.lag());
  prometheusRoutes(app, services.telemetry);

  app.get(
    "/health",
    {
      config: { auth: "public" },
      schema: {
        tags: ["Operations"],
        summary: "Whether the service is up",
        response: { 200: Type.Object({ health: Type.Literal("GOOD") }) },
      },
    },
    async () => ({ health: "GOOD" as const }),
  );
  await app.register(eventRoutes, { prefix: "/api/admin/events", events: services.events });
  await app.register(tokenRoutes, { prefix: "/api/admin/api-tokens", tokens: services.tokens });
  await app.register(clientApiRoutes, { prefix: "/api/client", features: services.clientFeatures });
  await app.register(frontendRoutes, {
    prefix: "/api/frontend",
    frontend: services.frontend,
    origins: config.frontendCorsOrigins,
    within: async (scope) => {
      await scope.register(usageRoutes, { prefix: "/client", metrics: services.metrics, auth: "frontend" });
    },
  });
  await app.register(usageRoutes, { prefix: "/api/client", metrics: services.metrics, auth: "client" });
  await app.register(applicationRoutes, { prefix: "/api/admin/metrics", metrics: services.metrics });
  await app.register(flagUsageRoutes, { prefix: "/api/admin/client-metrics", metrics: services.metrics });
  await app.register(environmentRoutes, {
    prefix: "/api/admin/environments",
    environments: services.environments,
  });
  await app.register(projectRoutes, {
    prefix: "/api/admin/projects",
    projects: services.projects,
    defaultStrategies: services.defaultStrategies,
  });
  await app.register(memberRoutes, { prefix: "/api/admin/projects/:projectId", members: services.members });
  await app.register(roleRoutes, { prefix: "/api/admin", roles: services.roles });
  await app.register(groupRoutes, { prefix: "/api/admin/groups", groups: services.groups });
  await app.register(segmentRoutes, { prefix: "/api/admin/segments", segments: services.segments });
  await app.register(contextFieldRoutes, { prefix: "/api/admin/context", fields: services.contextFields });
  await app.register(tagTypeRoutes, { prefix: "/api/admin/tag-types", tagTypes: services.tagTypes });
  await app.register(strategyDefinitionRoutes, {
    prefix: "/api/admin/strategies",
    definitions: services.strategyDefinitions,
  });
  const flag = "/api/admin/projects/:projectId/features/:featureName";
  await app.register(flagRoutes, { prefix: "/api/admin", flags: services.flags });
  await app.register(variantRoutes, { prefix: flag, variants: services.variants });
  await app.register(strategyRoutes, {
    prefix: `${flag}/environments/:environment/strategies`,
    strategies: services.strategies,
  });
  await app.register(featureTagRoutes, { prefix: "/api/admin", featureTags: services.featureTags });
  await app.register(dependencyRoutes, {
    prefix: "/api/admin/projects/:projectId",
    dependencies: services.dependencies,
  });
  await app.register(lifecycleRoutes, { prefix: `${flag}/lifecycle`, lifecycle: services.lifecycle });
  await app.register(ssoSettingsRoutes, { prefix: "/api/admin/auth/oidc/settings", sso: services.sso });
  await app.register(ssoLoginRoutes, { prefix: "/auth/oidc", sso: services.sso });
  await app.register(loginRoutes, { prefix: "/auth/simple", sessions: services.sessions });
  await app.register(logoutRoutes, { prefix: "/logout", sessions: services.sessions });
  await app.register(passwordResetRoutes, { prefix: "/auth/reset", users: services.users });
  await app.register(currentUserRoutes, { prefix: "/api/admin/user", users: services.users });
  await app.register(userAdminRoutes, { prefix: "/api/admin/user-admin", users: services.users });
  await app.register(serviceAccountRoutes, {
    prefix: "/api/admin/service-account",
    users: services.users,
    personalTokens: services.personalTokens,
  });
  await app.register(changeRequestRoutes, {
    prefix: "/api/admin/projects/:projectId",
    changeRequests: services.changeRequests,
  });
  await app.register(changeRequestSearchRoutes, {
    prefix: "/api/admin/search/change-requests",
    changeRequests: services.changeRequests,
  });
  await app.register(addonRoutes, { prefix: "/api/admin/addons", addons: services.addons });
  await app.register(insightRoutes, {
    prefix: "/api/admin/projects/:projectId",
    insights: services.insights,
  });
  await app.register(playgroundRoutes, { prefix: "/api/admin/playground", playground: services.playground });
  await app.register(importExportRoutes, {
    prefix: "/api/admin/features-batch",
    importExport: services.importExport,
  });
  await app.register(favoriteRoutes, {
    prefix: "/api/admin/projects/:projectId",
    favorites: services.favorites,
  });
  await app.register(personalTokenRoutes, {
    prefix: "/api/admin/user/tokens",
    personalTokens: services.personalTokens,
  });
  await app.register(serviceAccountTokenRoutes, {
    prefix: "/api/admin/service-account",
    personalTokens: services.personalTokens,
  });

  await app.ready();
  return { app, services, routes };
}
