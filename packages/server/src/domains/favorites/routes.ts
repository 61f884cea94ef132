import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { FeatureParams, ProjectParams } from "../features/params.js";
import type { FavoriteService } from "./service.js";

const tags = ["Favorites"];
const done = { 200: Type.Null() };

/**
 * Under /api/admin/projects/:projectId: a person marks a flag or a project as a favourite
 * (POST) or unmarks it (DELETE). Any person may (permission NONE); API tokens, which
 * belong to no one, are refused.
 */
export const favoriteRoutes: FastifyPluginAsyncTypebox<{ favorites: FavoriteService }> = async (
  app,
  { favorites },
) => {
  for (const [method, favorite] of [
    ["post", true],
    ["delete", false],
  ] as const) {
    const verb = favorite ? "Marks" : "Unmarks";
    app[method](
      "/api/admin/projects/:projectId/features/:featureName/favorites",
      {
        schema: {
          tags,
          summary: `${verb} a flag as the caller's favourite`,
          params: FeatureParams,
          response: done,
        },
        config: { permission: "NONE", person: true },
      },
      async (request) => {
        const { projectId, featureName } = request.params;
        await favorites.setFeature(request.actor, projectId, featureName, favorite);
      },
    );

    app[method](
      "/api/admin/projects/:projectId/favorites",
      {
        schema: {
          tags,
          summary: `${verb} a project as the caller's favourite`,
          params: ProjectParams,
          response: done,
        },
        config: { permission: "NONE", person: true },
      },
      async (request) => {
        await favorites.setProject(request.actor, request.params.projectId, favorite);
      },
    );
  }
};
