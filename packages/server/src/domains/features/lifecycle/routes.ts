import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { FeatureParams } from "../params.js";
import { Completion, StageEntry } from "./schemas.js";
import type { LifecycleService } from "./service.js";

const tags = ["Lifecycle"];

export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ lifecycle: LifecycleService }> = async (
  app,
  { lifecycle },
) => {
  app.get(
    "/api/admin/projects/:projectId/features/:featureName/lifecycle",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The stages the flag has entered",
        params: FeatureParams,
        response: { 200: Type.Array(StageEntry) },
      },
    },
    (request) => lifecycle.stages(request.actor, request.params.projectId, request.params.featureName),
  );

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/lifecycle/complete",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Marks the flag completed, kept or discarded",
        params: FeatureParams,
        body: Completion,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { projectId, featureName } = request.params;
      await lifecycle.complete(request.actor, projectId, featureName, request.body);
    },
  );

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/lifecycle/uncomplete",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Takes the flag back out of the completed stage",
        params: FeatureParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      await lifecycle.uncomplete(request.actor, request.params.projectId, request.params.featureName);
    },
  );
};
