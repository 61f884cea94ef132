import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ClientMetricsSchema, ClientRegistrationSchema } from "@signalbox/protocol";
import { Type } from "typebox";
import type { TokenActor } from "../../access/actor.js";
import { tokenCaller } from "../../http/auth.js";
import {
  ApplicationDetail,
  ApplicationList,
  ApplicationOverview,
  ApplicationParams,
  ApplicationSettings,
  ApplicationsQuery,
  ExposureQuery,
  FlagExposure,
  FlagNameParams,
  FlagUsageSummary,
  InstanceParams,
  RecentInstances,
} from "./schemas.js";
import type { MetricsService } from "./service.js";

/**
 * Where a report's impact metrics go (the impact-metrics domain's service, which imports
 * from this domain: named by its shape here, so the two import one way only). It never fails.
 */
export interface ImpactMetricsSink {
  ingest(token: TokenActor, appName: string, impactMetrics: unknown): Promise<void>;
}

// The reference answers server SDKs 202 and browser SDKs 200.
const sdks = {
  client: { base: "/api/client", status: 202, tags: ["Client"] },
  frontend: { base: "/api/frontend/client", status: 200, tags: ["Frontend"] },
} as const;

/**
 * Where SDKs register and report usage: server SDKs with a client token, and browser SDKs
 * with a frontend token inside the frontend API's CORS scope. A report's impact metrics go
 * to their own domain, which never fails the report.
 */
export const usageRoutes: FastifyPluginAsyncTypebox<{
  metrics: MetricsService;
  impactMetrics: ImpactMetricsSink;
  auth: "client" | "frontend";
}> = async (app, { metrics, impactMetrics, auth }) => {
  const { base, status, tags } = sdks[auth];
  const response = { [status]: Type.Null() };

  app.post(
    `${base}/register`,
    {
      config: { auth },
      schema: { tags, summary: "An SDK announces itself", body: ClientRegistrationSchema, response },
    },
    async (request, reply) => {
      await metrics.register(tokenCaller(request), request.body, request.ip);
      reply.status(status);
    },
  );

  app.post(
    `${base}/metrics`,
    {
      config: { auth },
      schema: {
        tags,
        summary: "An SDK reports how often its flags were evaluated",
        body: ClientMetricsSchema,
        response,
      },
    },
    async (request, reply) => {
      const token = tokenCaller(request);
      await Promise.all([
        metrics.report(token, request.body, request.ip),
        impactMetrics.ingest(token, request.body.appName, request.body.impactMetrics),
      ]);
      reply.status(status);
    },
  );
};

const adminTags = ["Metrics"];

/** The applications SDKs announced, and how an admin shows or forgets them. */
export const applicationRoutes: FastifyPluginAsyncTypebox<{ metrics: MetricsService }> = async (
  app,
  { metrics },
) => {
  app.get(
    "/api/admin/metrics/applications",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary: "The applications that have registered or reported, by name",
        querystring: ApplicationsQuery,
        response: { 200: ApplicationList },
      },
    },
    (request) => {
      const { query, offset = 0, limit = 1000, sortBy = "appName", sortOrder = "asc" } = request.query;
      return metrics.applications(request.actor, { query, offset, limit, sortBy, sortOrder });
    },
  );

  app.get(
    "/api/admin/metrics/applications/:appName",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary: "An application: how it is shown, its instances and the flags it used in the last day",
        params: ApplicationParams,
        response: { 200: ApplicationDetail },
      },
    },
    (request) => metrics.application(request.actor, request.params.appName),
  );

  app.get(
    "/api/admin/metrics/applications/:appName/overview",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary: "An application per environment: instances, SDKs and what looks wrong",
        params: ApplicationParams,
        response: { 200: ApplicationOverview },
      },
    },
    (request) => metrics.applicationOverview(request.actor, request.params.appName),
  );

  app.get(
    "/api/admin/metrics/instances/:appName/environment/:environment",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary: "The instances of an application heard from in an environment in the last day",
        params: InstanceParams,
        response: { 200: RecentInstances },
      },
    },
    (request) => metrics.recentInstances(request.actor, request.params.appName, request.params.environment),
  );

  app.post(
    "/api/admin/metrics/applications/:appName",
    {
      config: { permission: "UPDATE_APPLICATION" },
      schema: {
        tags: adminTags,
        summary: "Creates an application, or changes how it is shown; settings left out stay",
        params: ApplicationParams,
        body: ApplicationSettings,
        response: { 202: Type.Null() },
      },
    },
    async (request, reply) => {
      await metrics.saveApplication(request.actor, request.params.appName, request.body ?? {}, request.ip);
      reply.status(202);
    },
  );

  app.delete(
    "/api/admin/metrics/applications/:appName",
    {
      config: { permission: "UPDATE_APPLICATION" },
      schema: {
        tags: adminTags,
        summary: "Forgets an application and its instances (answered 200 whether it existed or not)",
        params: ApplicationParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      await metrics.deleteApplication(request.actor, request.params.appName);
    },
  );
};

// The envelope the reference puts around a flag's metrics.
const envelope = { version: 1, maturity: "stable" } as const;

/** How much a flag is evaluated, by whom and where. */
export const flagUsageRoutes: FastifyPluginAsyncTypebox<{ metrics: MetricsService }> = async (
  app,
  { metrics },
) => {
  app.get(
    "/api/admin/client-metrics/features/:name/raw",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary:
          "A flag's evaluations per hour, application and environment, oldest hour first, hours without any counted as zero",
        params: FlagNameParams,
        querystring: ExposureQuery,
        response: { 200: FlagExposure },
      },
    },
    async (request) => ({
      ...envelope,
      data: await metrics.flagExposure(request.actor, request.params.name, request.query.hoursBack ?? 24),
    }),
  );

  app.get(
    "/api/admin/client-metrics/features/:name",
    {
      config: { permission: "NONE" },
      schema: {
        tags: adminTags,
        summary:
          "A flag's evaluations this hour per environment, and the applications that used it in the last day",
        params: FlagNameParams,
        response: { 200: FlagUsageSummary },
      },
    },
    async (request) => ({
      ...envelope,
      featureName: request.params.name,
      ...(await metrics.flagUsage(request.actor, request.params.name)),
    }),
  );
};
