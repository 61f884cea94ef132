import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { FeatureParams, ProjectParams } from "../params.js";
import { Dependency, ParentParams } from "./schemas.js";
import type { DependencyService } from "./service.js";

const tags = ["Dependencies"];

export const dependencyRoutes: FastifyPluginAsyncTypebox<{ dependencies: DependencyService }> = async (
  app,
  { dependencies },
) => {
  const permission = "UPDATE_FEATURE_DEPENDENCY";

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/dependencies",
    {
      config: { permission },
      schema: {
        tags,
        summary: "Makes the flag depend on a parent flag",
        params: FeatureParams,
        body: Dependency,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { projectId, featureName } = request.params;
      await dependencies.add(request.actor, projectId, featureName, request.body);
    },
  );

  app.delete(
    "/api/admin/projects/:projectId/features/:featureName/dependencies/:parent",
    {
      config: { permission },
      schema: {
        tags,
        summary: "Removes one parent of the flag",
        params: ParentParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { projectId, featureName, parent } = request.params;
      await dependencies.remove(request.actor, projectId, featureName, parent);
    },
  );

  app.delete(
    "/api/admin/projects/:projectId/features/:featureName/dependencies",
    {
      config: { permission },
      schema: {
        tags,
        summary: "Removes every parent of the flag",
        params: FeatureParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { projectId, featureName } = request.params;
      await dependencies.remove(request.actor, projectId, featureName, undefined);
    },
  );

  app.get(
    "/api/admin/projects/:projectId/dependencies",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "Whether any flag of the project depends on another",
        params: ProjectParams,
        response: { 200: Type.Boolean() },
      },
    },
    (request) => dependencies.hasAny(request.actor, request.params.projectId),
  );
};
