import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyPluginAsync, LogController, type RouteOptions } from "fastify";
import { Type } from "typebox";
import { type Config, defaultConfig } from "./config.js";
import type { Db } from "./db/connection.js";
import { GrantsService } from "./domains/access/grants/service.js";
import { groupRoutes } from "./domains/access/groups/routes.js";
import { GroupService } from "./domains/access/groups/service.js";
import { groupProjects } from "./domains/access/members/group-projects.js";
import { memberRoutes } from "./domains/access/members/routes.js";
import { MemberService } from "./domains/access/members/service.js";
import { roleRoutes } from "./domains/access/roles/routes.js";
import { RoleService } from "./domains/access/roles/service.js";
import { addonRoutes } from "./domains/addons/routes.js";
import { AddonService } from "./domains/addons/service.js";
import { ChangeRequestConfiguration } from "./domains/change-requests/configuration.js";
import { ChangeRequestDetails } from "./domains/change-requests/details.js";
import { ChangeRequestDrafts } from "./domains/change-requests/drafts.js";
import { ChangeRequestQueries } from "./domains/change-requests/queries.js";
import { changeRequestRoutes, changeRequestSearchRoutes } from "./domains/change-requests/routes.js";
import { ChangeRequestScheduler } from "./domains/change-requests/scheduler.js";
import { ChangeRequestSchedules } from "./domains/change-requests/schedules.js";
import { ChangeRequestTransitions } from "./domains/change-requests/transitions.js";
import { clientApiRoutes } from "./domains/client-api/routes.js";
import { ClientFeaturesService } from "./domains/client-api/service.js";
import { ClientStreams } from "./domains/client-api/streams.js";
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
import { FlagEditingService } from "./domains/features/editing/service.js";
import { flagRoutes } from "./domains/features/flags/routes.js";
import { FlagService } from "./domains/features/flags/service.js";
import { lifecycleRoutes } from "./domains/features/lifecycle/routes.js";
import { LifecycleService } from "./domains/features/lifecycle/service.js";
import { DefaultStrategyService } from "./domains/features/strategies/default-strategy.js";
import { strategyRoutes } from "./domains/features/strategies/routes.js";
import { StrategyService } from "./domains/features/strategies/service.js";
import { featureTagRoutes } from "./domains/features/tags/routes.js";
import { FeatureTagService } from "./domains/features/tags/service.js";
import { variantRoutes } from "./domains/features/variants/routes.js";
import { VariantService } from "./domains/features/variants/service.js";
import { FlagViewService } from "./domains/features/view/service.js";
import { flagVersionRoutes } from "./domains/flag-versions/routes.js";
import { FlagVersionService } from "./domains/flag-versions/service.js";
import { ofrepRoutes } from "./domains/frontend-api/ofrep/routes.js";
import { frontendRoutes } from "./domains/frontend-api/routes.js";
import { FrontendService } from "./domains/frontend-api/service.js";
import { flagImpactMetricRoutes, impactMetricRoutes } from "./domains/impact-metrics/routes.js";
import { ImpactMetricsService } from "./domains/impact-metrics/service.js";
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
import { ProjectLifecycle } from "./domains/projects/lifecycle.js";
import { ProjectOverview } from "./domains/projects/overview.js";
import { projectRoutes } from "./domains/projects/routes.js";
import { ProjectService } from "./domains/projects/service.js";
import { ReleasePlanService } from "./domains/release-plans/plans.js";
import { releasePlanRoutes, releaseTemplateRoutes } from "./domains/release-plans/routes.js";
import { SafeguardService } from "./domains/release-plans/safeguards.js";
import { ReleaseScheduler } from "./domains/release-plans/scheduler.js";
import { ReleaseTemplateService } from "./domains/release-plans/templates.js";
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
import { edgeRoutes, tokenRoutes } from "./domains/tokens/routes.js";
import { TokenService } from "./domains/tokens/service.js";
import { setPasswordHashCost } from "./domains/users/passwords.js";
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
  settings: Pick<
    Config,
    "sessionTtlHours" | "loginFailuresPerMinute" | "integrations" | "streaming" | "releases" | "impactMetrics"
  > = defaultConfig(),
) {
  const events = new EventService(db, telemetry);
  const clientFeatures = new ClientFeaturesService(db, events, telemetry);
  const frontend = new FrontendService(clientFeatures);
  const environments = new EnvironmentService(db, events);
  // Roles, people, projects, then project access: each is given only what sits below it.
  const roles = new RoleService(db, events, environments);
  const users = new UserService(db, events, { environments, roles });
  // A user's sessions end with a change of their credentials: users say when, sessions listen.
  const sessions = new SessionService(db, events, users, {
    ttlHours: settings.sessionTtlHours,
    failuresPerMinute: settings.loginFailuresPerMinute,
  });
  const sso = new SsoService(db, events, users, sessions);
  const personalTokens = new PersonalTokenService(db, events, users);
  const projects = new ProjectService(db, events, environments);
  // What a user may do depends on projects and memberships: their actor is made here, above people.
  const grants = new GrantsService(db, events, { projects, users });
  const groups = new GroupService(db, events, roles, users, groupProjects);
  const members = new MemberService(db, events, projects, roles, groups, users);
  const tokens = new TokenService(db, events, environments, projects);
  const clientStreams = new ClientStreams(
    clientFeatures,
    events,
    (secret) => tokens.resolve(secret),
    settings.streaming,
    telemetry,
  );
  const segments = new SegmentService(db, events, projects);
  const contextFields = new ContextFieldService(db, events);
  const tagTypes = new TagTypeService(db, events);
  const strategyDefinitions = new StrategyDefinitionService(db, events);
  // The flag parts ask flags about the flag they work on; the flag's view and its editing ask them all.
  const flags = new FlagService(db, events, projects);
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
  // A peer of metrics: the usage routes hand it a report's impact metrics.
  const impactMetrics = new ImpactMetricsService(db, events, { flags }, settings.impactMetrics, telemetry);
  const favorites = new FavoriteService(db, events, { flags, projects });
  const flagViews = new FlagViewService(db, {
    flags,
    strategies,
    tags: featureTags,
    dependencies,
    lifecycle,
    favorites,
    segments,
  });
  const flagEditing = new FlagEditingService(events, {
    flags,
    projects,
    strategies,
    tags: featureTags,
    dependencies,
    lifecycle,
    favorites,
    views: flagViews,
  });
  const playground = new PlaygroundService(db, clientFeatures, strategies);
  const insights = new InsightsService(db);
  const projectOverview = new ProjectOverview(db, { flags, members, favorites, insights });
  const projectLifecycle = new ProjectLifecycle(events, {
    projects,
    overview: projectOverview,
    environments,
    members,
    flags,
    strategies,
  });
  const staleness = new StalenessJob(events, flags);
  // Use cases above the flag services. Release plans serve milestones through the strategies
  // and switch flags off through their editing.
  const releaseTemplates = new ReleaseTemplateService(db, events, { strategies, segments });
  const releasePlans = new ReleasePlanService(
    db,
    events,
    { flags, flagEditing, strategies, segments, templates: releaseTemplates },
    settings.releases,
  );
  const safeguards = new SafeguardService(
    db,
    events,
    { flags, flagEditing, plans: releasePlans, metrics: impactMetrics },
    settings.releases,
  );
  const releaseScheduler = new ReleaseScheduler(
    releasePlans,
    safeguards,
    settings.releases,
    events.outbox,
    events,
  );
  // Changes are checked against the flag services and applied through them.
  const changeTargets = {
    flags,
    flagEditing,
    strategies,
    variants,
    dependencies,
    segments,
    releaseTemplates,
    releasePlans,
    safeguards,
  };
  const changeRequestQueries = new ChangeRequestQueries(db, {
    projects,
    users,
    grants,
    targets: changeTargets,
  });
  const changeRequests = {
    configuration: new ChangeRequestConfiguration(db, events, { projects, environments }),
    queries: changeRequestQueries,
    drafts: new ChangeRequestDrafts(events, changeRequestQueries, { projects, targets: changeTargets }),
    details: new ChangeRequestDetails(events, { projects, users }),
    transitions: new ChangeRequestTransitions(events, changeRequestQueries, {
      projects,
      targets: changeTargets,
    }),
    schedules: new ChangeRequestSchedules(db, events, { users, grants, targets: changeTargets }),
  };
  // Restoring a flag's version goes through the flag services, or into change requests.
  const flagVersions = new FlagVersionService(db, events, {
    flags,
    dependencies,
    projects,
    targets: changeTargets,
    contextFields,
    definitions: strategyDefinitions,
    drafts: changeRequests.drafts,
    queries: changeRequestQueries,
  });
  const changeRequestScheduler = new ChangeRequestScheduler(changeRequests.schedules, events.outbox, events);
  const addons = new AddonService(db, events, { tagTypes, projects }, settings.integrations);
  const importExport = new ImportExportService(db, events, {
    flags,
    flagViews,
    flagEditing,
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
    changeRequests: changeRequests.drafts,
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
    flagVersions,
    releaseTemplates,
    releasePlans,
    safeguards,
    releaseScheduler,
    insights,
    staleness,
    addons,
    importExport,
    clientFeatures,
    clientStreams,
    frontend,
    metrics,
    impactMetrics,
    environments,
    projects,
    projectOverview,
    projectLifecycle,
    defaultStrategies,
    segments,
    contextFields,
    tagTypes,
    strategyDefinitions,
    flags,
    flagViews,
    flagEditing,
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
  setPasswordHashCost(config.passwordHashCost);
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
  // `user:` marks a personal access token, but is also how an API token of a project
  // named "user" begins: such a secret is an API token when it is no personal one.
  const personOrToken = async (secret: string) => {
    const person = await services.personalTokens.resolve(secret);
    return person ? services.grants.actorOf(person, "pat") : services.tokens.resolve(secret);
  };
  app.addHook(
    "onRequest",
    authenticate({
      // A person found by their token or session is made an actor by their grants; an API
      // token looked up lately is answered at once.
      bearer: (secret) =>
        secret.startsWith("user:") ? personOrToken(secret) : services.tokens.resolve(secret),
      session: async (id) => {
        const person = await services.sessions.resolve(id);
        return person && services.grants.actorOf(person, "session");
      },
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
  await app.register(eventRoutes, { events: services.events });
  await app.register(tokenRoutes, { tokens: services.tokens });
  await app.register(clientApiRoutes, {
    features: services.clientFeatures,
    streams: services.clientStreams,
  });
  // Streams never end by themselves: ended here, their SDKs reconnect to another instance.
  app.addHook("preClose", (done) => {
    services.clientStreams.close();
    done();
  });
  await app.register(frontendRoutes, {
    frontend: services.frontend,
    origins: config.frontendCorsOrigins,
    within: async (scope) => {
      await scope.register(usageRoutes, {
        metrics: services.metrics,
        impactMetrics: services.impactMetrics,
        auth: "frontend",
      });
    },
  });
  await app.register(ofrepRoutes, {
    frontend: services.frontend,
    streams: services.clientStreams,
    origins: config.frontendCorsOrigins,
  });
  await app.register(usageRoutes, {
    metrics: services.metrics,
    impactMetrics: services.impactMetrics,
    auth: "client",
  });
  await app.register(applicationRoutes, { metrics: services.metrics });
  await app.register(flagUsageRoutes, { metrics: services.metrics });
  await app.register(impactMetricRoutes, { impactMetrics: services.impactMetrics });
  await app.register(flagImpactMetricRoutes, { impactMetrics: services.impactMetrics });
  await app.register(environmentRoutes, { environments: services.environments });
  await app.register(projectRoutes, {
    projects: services.projects,
    overview: services.projectOverview,
    lifecycle: services.projectLifecycle,
    defaultStrategies: services.defaultStrategies,
  });
  await app.register(memberRoutes, { members: services.members });
  await app.register(roleRoutes, { roles: services.roles, holders: services.members });
  await app.register(groupRoutes, { groups: services.groups });
  await app.register(segmentRoutes, { segments: services.segments });
  await app.register(contextFieldRoutes, { fields: services.contextFields });
  await app.register(tagTypeRoutes, { tagTypes: services.tagTypes });
  await app.register(strategyDefinitionRoutes, { definitions: services.strategyDefinitions });
  await app.register(flagRoutes, {
    flags: services.flags,
    editing: services.flagEditing,
    views: services.flagViews,
  });
  await app.register(variantRoutes, { variants: services.variants });
  await app.register(strategyRoutes, { strategies: services.strategies });
  await app.register(featureTagRoutes, { featureTags: services.featureTags });
  await app.register(dependencyRoutes, { dependencies: services.dependencies });
  await app.register(lifecycleRoutes, { lifecycle: services.lifecycle });
  await app.register(flagVersionRoutes, { versions: services.flagVersions });
  await app.register(releaseTemplateRoutes, { templates: services.releaseTemplates });
  await app.register(releasePlanRoutes, { plans: services.releasePlans, safeguards: services.safeguards });
  await app.register(ssoSettingsRoutes, { sso: services.sso });
  await app.register(ssoLoginRoutes, { sso: services.sso });
  await app.register(loginRoutes, { sessions: services.sessions });
  await app.register(logoutRoutes, { sessions: services.sessions });
  await app.register(passwordResetRoutes, { users: services.users });
  await app.register(currentUserRoutes, { users: services.users });
  await app.register(userAdminRoutes, { users: services.users });
  await app.register(serviceAccountRoutes, {
    users: services.users,
    personalTokens: services.personalTokens,
  });
  await app.register(changeRequestRoutes, { changeRequests: services.changeRequests });
  await app.register(changeRequestSearchRoutes, { changeRequests: services.changeRequests });
  await app.register(addonRoutes, { addons: services.addons });
  await app.register(insightRoutes, {
    insights: services.insights,
    overview: services.projectOverview,
    views: services.flagViews,
  });
  await app.register(playgroundRoutes, { playground: services.playground });
  await app.register(importExportRoutes, { importExport: services.importExport });
  await app.register(favoriteRoutes, { favorites: services.favorites });
  await app.register(personalTokenRoutes, { personalTokens: services.personalTokens });
  await app.register(serviceAccountTokenRoutes, { personalTokens: services.personalTokens });
  await app.register(edgeRoutes, { tokens: services.tokens });

  await app.ready();
  return { app, services, routes };
}
