import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FlagViewService } from "../features/view/service.js";
import type { ProjectOverview } from "../projects/overview.js";
import { HealthReport, ProjectInsights, ProjectParams } from "./schemas.js";
import type { InsightsService } from "./service.js";

const tags = ["Projects"];

/**
 * The project is read first, as its overview shows it: an unknown one is 404, as the spec
 * says, before anything else is read.
 */
export const insightRoutes: FastifyPluginAsyncTypebox<{
  insights: InsightsService;
  overview: Pick<ProjectOverview, "get">;
  views: Pick<FlagViewService, "listProject">;
}> = async (app, { insights, overview, views }) => {
  app.get(
    "/api/admin/projects/:projectId/health-report",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's health: its flags, how many are stale or overdue, and its activity",
        params: ProjectParams,
        response: { 200: HealthReport },
      },
    },
    async (request) => {
      const project = await overview.get(request.actor, request.params.projectId);
      return insights.healthReport(project, await views.listProject(request.actor, project.id, { tags: [] }));
    },
  );

  app.get(
    "/api/admin/projects/:projectId/insights",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's insights: activity, health, time to production, flag types and members",
        params: ProjectParams,
        response: { 200: ProjectInsights },
      },
    },
    async (request) => insights.insights(await overview.get(request.actor, request.params.projectId)),
  );
};
