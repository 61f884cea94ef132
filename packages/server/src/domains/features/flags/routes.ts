import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { JsonPatch } from "../../../shared/json-patch.js";
import { CreateFeature, Names, SwitchQuery } from "../editing/schemas.js";
import type { FlagEditingService } from "../editing/service.js";
import { EnvironmentParams, FeatureNameParams, FeatureParams, ProjectParams } from "../params.js";
import { FeatureList, FeatureView, Listing, ListQuery, SearchQuery, SearchResult } from "../view/schemas.js";
import type { FlagViewService } from "../view/service.js";
import { Staleness, UpdateFeature, ValidateName } from "./schemas.js";
import type { FlagService } from "./service.js";

const tags = ["Features"];
// Answers without a body.
const done = { 200: Type.Null() };
const accepted = { 202: Type.Null() };

/**
 * Flags are reached through their project, by name alone, and in the archive. What only the
 * flag's row holds is the flags' to answer; what reaches its parts is the flag editing's; what
 * shows the flag whole is the flag view's.
 */
export const flagRoutes: FastifyPluginAsyncTypebox<{
  flags: FlagService;
  editing: FlagEditingService;
  views: FlagViewService;
}> = async (app, { flags, editing, views }) => {
  app.post(
    "/api/admin/projects/:projectId/features",
    {
      config: { permission: "CREATE_FEATURE" },
      schema: {
        tags,
        summary: "Creates a flag in the project",
        params: ProjectParams,
        body: CreateFeature,
        response: { 200: FeatureView },
      },
    },
    (request) => editing.create(request.actor, request.params.projectId, request.body),
  );

  app.post(
    "/api/admin/features/validate",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "Whether a flag could be created with this name",
        body: ValidateName,
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      await flags.validateName(request.actor, request.body.name);
      return {};
    },
  );

  app.get(
    "/api/admin/projects/:projectId/features",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's active flags, by name prefix and tag",
        params: ProjectParams,
        querystring: ListQuery,
        response: { 200: Listing },
      },
    },
    async (request) => {
      const { namePrefix, tag } = request.query;
      const filters = { namePrefix, tags: tag === undefined ? [] : [tag].flat() };
      return {
        version: 2,
        features: await views.listProject(request.actor, request.params.projectId, filters),
      };
    },
  );

  app.get(
    "/api/admin/search/features",
    {
      config: { permission: "NONE" },
      schema: {
        tags: ["Search"],
        summary: "Searches and filters flags, a page at a time",
        querystring: SearchQuery,
        response: { 200: SearchResult },
      },
    },
    (request) => views.search(request.actor, request.query),
  );

  app.get(
    "/api/admin/projects/:projectId/features/:featureName",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "A flag of the project",
        params: FeatureParams,
        response: { 200: FeatureView },
      },
    },
    (request) => views.get(request.actor, request.params.projectId, request.params.featureName),
  );

  app.get(
    "/api/admin/features/:featureName",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "A flag, by name", params: FeatureNameParams, response: { 200: FeatureView } },
    },
    (request) => views.get(request.actor, undefined, request.params.featureName),
  );

  for (const [method, body, summary] of [
    ["put", UpdateFeature, "Replaces a flag's metadata"],
    ["patch", JsonPatch, "Changes a flag's metadata, or its project, with a JSON Patch"],
  ] as const) {
    app[method](
      "/api/admin/projects/:projectId/features/:featureName",
      {
        config: { permission: "UPDATE_FEATURE" },
        schema: { tags, summary, params: FeatureParams, body, response: { 200: FeatureView } },
      },
      (request) =>
        editing.update(request.actor, request.params.projectId, request.params.featureName, request.body),
    );
  }

  app.post(
    "/api/admin/projects/:projectId/stale",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Marks flags of the project stale, or no longer stale",
        params: ProjectParams,
        body: Staleness,
        response: accepted,
      },
    },
    async (request, reply) => {
      const { features, stale } = request.body;
      await flags.setStale(request.actor, request.params.projectId, features, stale);
      reply.status(202);
    },
  );

  // Archive: archiving, reviving and deleting for good.
  app.delete(
    "/api/admin/projects/:projectId/features/:featureName",
    {
      config: { permission: "DELETE_FEATURE" },
      schema: { tags, summary: "Archives a flag", params: FeatureParams, response: accepted },
    },
    async (request, reply) => {
      await editing.archive(request.actor, request.params.projectId, [request.params.featureName]);
      reply.status(202);
    },
  );

  for (const [path, permission, act, summary] of [
    ["/api/admin/projects/:projectId/archive", "DELETE_FEATURE", "archive", "Archives flags of the project"],
    [
      "/api/admin/projects/:projectId/revive",
      "UPDATE_FEATURE",
      "revive",
      "Revives archived flags of the project",
    ],
    [
      "/api/admin/projects/:projectId/delete",
      "DELETE_FEATURE",
      "remove",
      "Deletes archived flags of the project for good",
    ],
  ] as const) {
    const status = act === "archive" ? 202 : 200;
    app.post(
      path,
      {
        config: { permission },
        schema: {
          tags,
          summary,
          params: ProjectParams,
          body: Names,
          response: status === 202 ? accepted : done,
        },
      },
      async (request, reply) => {
        await editing[act](request.actor, request.params.projectId, request.body.features);
        reply.status(status);
      },
    );
  }

  app.get(
    "/api/admin/archive/features",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "Every archived flag", response: { 200: FeatureList } },
    },
    async (request) => ({ version: 2, features: await views.listArchived(request.actor) }),
  );

  app.get(
    "/api/admin/archive/features/:projectId",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The project's archived flags",
        params: ProjectParams,
        response: { 200: FeatureList },
      },
    },
    async (request) => ({
      version: 2,
      features: await views.listArchived(request.actor, request.params.projectId),
    }),
  );

  app.post(
    "/api/admin/archive/revive/:featureName",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: { tags, summary: "Revives an archived flag", params: FeatureNameParams, response: done },
    },
    async (request) => {
      await editing.revive(request.actor, undefined, [request.params.featureName]);
    },
  );

  app.delete(
    "/api/admin/archive/:featureName",
    {
      config: { permission: "DELETE_FEATURE" },
      schema: {
        tags,
        summary: "Deletes an archived flag for good",
        params: FeatureNameParams,
        response: done,
      },
    },
    async (request) => {
      await editing.remove(request.actor, undefined, [request.params.featureName]);
    },
  );

  for (const [path, enabled] of [
    ["/api/admin/projects/:projectId/features/:featureName/environments/:environment/on", true],
    ["/api/admin/projects/:projectId/features/:featureName/environments/:environment/off", false],
  ] as const) {
    app.post(
      path,
      {
        config: { permission: "UPDATE_FEATURE_ENVIRONMENT" },
        schema: {
          tags,
          summary: `Switches the flag ${enabled ? "on" : "off"} in the environment`,
          params: EnvironmentParams,
          querystring: SwitchQuery,
          response: done,
        },
      },
      async (request) => {
        const activate = request.query.shouldActivateDisabledStrategies === true;
        await editing.setEnabled(request.actor, request.params, enabled, activate);
      },
    );
  }
};
