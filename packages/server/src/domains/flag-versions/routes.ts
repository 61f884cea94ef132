import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { FeatureParams } from "../features/params.js";
import {
  PreviewQuery,
  RestoreBody,
  RestorePlan,
  RestoreResult,
  VersionList,
  VersionListQuery,
  VersionParams,
} from "./schemas.js";
import type { FlagVersionService } from "./service.js";

const tags = ["Features"];

/**
 * A flag's versions and their restoring. What restoring needs depends on what it changes
 * (strategies, switches, variants, dependencies, per environment): the service asks for the
 * permission of each change, as its own route would.
 */
export const flagVersionRoutes: FastifyPluginAsyncTypebox<{ versions: FlagVersionService }> = async (
  app,
  { versions },
) => {
  app.get(
    "/api/admin/projects/:projectId/features/:featureName/versions",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The flag's versions, newest first: one per change of what it serves",
        params: FeatureParams,
        querystring: VersionListQuery,
        response: { 200: VersionList },
      },
    },
    (request) => {
      const { projectId, featureName } = request.params;
      const { limit = 100, offset = 0 } = request.query;
      return versions.list(request.actor, projectId, featureName, { limit, offset });
    },
  );

  app.get(
    "/api/admin/projects/:projectId/features/:featureName/versions/:eventId/restore",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "What restoring a version of the flag would change, and what stops it",
        params: VersionParams,
        querystring: PreviewQuery,
        response: { 200: RestorePlan },
      },
    },
    (request) => {
      const { projectId, featureName, eventId } = request.params;
      return versions.preview(request.actor, projectId, featureName, eventId, request.query.environment);
    },
  );

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/versions/:eventId/restore",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "Restores a version of the flag, in one environment or whole, as one change",
        params: VersionParams,
        body: RestoreBody,
        response: { 200: RestoreResult },
      },
    },
    (request) => {
      const { projectId, featureName, eventId } = request.params;
      return versions.restore(request.actor, projectId, featureName, eventId, request.body ?? {});
    },
  );
};
