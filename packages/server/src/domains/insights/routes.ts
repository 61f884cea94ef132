import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { HealthReport, ProjectInsights, ProjectParams } from "./schemas.js";
import type { InsightsService } from "./service.js";

const tags = ["Projects"];

/** Under `/api/admin/projects/:projectId`. */
export const insightRoutes: FastifyPluginAsyncTypebox<{ insights: InsightsService }> = async (
  app,
  { insights },
) => {
  app.get(
    "/health-report",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's health: its flags, how many are stale or overdue, and its activity",
        params: ProjectParams,
        response: { 200: HealthReport },
      },
    },
    (request) => insights.healthReport(request.actor, request.params.projectId),
  );

  app.get(
    "/insights",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's insights: activity, health, time to production, flag types and members",
        params: ProjectParams,
        response: { 200: ProjectInsights },
      },
    },
    (request) => insights.insights(request.actor, request.params.projectId),
  );
};
