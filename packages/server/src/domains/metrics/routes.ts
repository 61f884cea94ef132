import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ClientMetricsSchema, ClientRegistrationSchema } from "@signalbox/protocol";
import { Type } from "typebox";
import { tokenCaller } from "../../http/auth.js";
import { ApplicationList, ApplicationsQuery } from "./schemas.js";
import type { MetricsService } from "./service.js";

/**
 * Where SDKs register and report usage: under `/api/client` for server SDKs and, inside the
 * frontend API's CORS scope, under `/api/frontend/client` for browser SDKs.
 */
export const usageRoutes: FastifyPluginAsyncTypebox<{
  metrics: MetricsService;
  auth: "client" | "frontend";
}> = async (app, { metrics, auth }) => {
  // The reference answers server SDKs 202 and browser SDKs 200.
  const response = auth === "client" ? { 202: Type.Null() } : { 200: Type.Null() };
  const status = auth === "client" ? 202 : 200;
  const tags = [auth === "client" ? "Client" : "Frontend"];

  app.post(
    "/register",
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
    "/metrics",
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
      await metrics.report(tokenCaller(request), request.body, request.ip);
      reply.status(status);
    },
  );
};

/** Under `/api/admin/metrics`. */
export const applicationRoutes: FastifyPluginAsyncTypebox<{ metrics: MetricsService }> = async (
  app,
  { metrics },
) => {
  app.get(
    "/applications",
    {
      config: { permission: "NONE" },
      schema: {
        tags: ["Metrics"],
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
};
