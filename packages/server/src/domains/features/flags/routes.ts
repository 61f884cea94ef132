import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { JsonPatch } from "../../../shared/json-patch.js";
import { EnvironmentParams, FeatureNameParams, FeatureParams, ProjectParams } from "../params.js";
import {
  CreateFeature,
  FeatureList,
  FeatureView,
  Listing,
  ListQuery,
  Names,
  SearchQuery,
  SearchResult,
  Staleness,
  SwitchQuery,
  UpdateFeature,
  ValidateName,
} from "./schemas.js";
import type { FlagService } from "./service.js";

const tags = ["Features"];
const flag = "/projects/:projectId/features/:featureName";
// Answers without a body.
const done = { 200: Type.Null() };
const accepted = { 202: Type.Null() };

/** Under `/api/admin`: flags are reached through their project, by name alone, and in the archive. */
export const flagRoutes: FastifyPluginAsyncTypebox<{ flags: FlagService }> = async (app, { flags }) => {
  app.post(
    "/projects/:projectId/features",
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
    (request) => flags.create(request.actor, request.params.projectId, request.body),
  );

  app.post(
    "/features/validate",
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
    "/projects/:projectId/features",
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
        features: await flags.listProject(request.actor, request.params.projectId, filters),
      };
    },
  );

  app.get(
    "/search/features",
    {
      config: { permission: "NONE" },
      schema: {
        tags: ["Search"],
        summary: "Searches and filters flags, a page at a time",
        querystring: SearchQuery,
        response: { 200: SearchResult },
      },
    },
    (request) => flags.search(request.actor, request.query),
  );

  app.get(
    flag,
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "A flag of the project",
        params: FeatureParams,
        response: { 200: FeatureView },
      },
    },
    (request) => flags.get(request.actor, request.params.projectId, request.params.featureName),
  );

  app.get(
    "/features/:featureName",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "A flag, by name", params: FeatureNameParams, response: { 200: FeatureView } },
    },
    (request) => flags.get(request.actor, undefined, request.params.featureName),
  );

  for (const [method, body, summary] of [
    ["put", UpdateFeature, "Replaces a flag's metadata"],
    ["patch", JsonPatch, "Changes a flag's metadata, or its project, with a JSON Patch"],
  ] as const) {
    app[method](
      flag,
      {
        config: { permission: "UPDATE_FEATURE" },
        schema: { tags, summary, params: FeatureParams, body, response: { 200: FeatureView } },
      },
      (request) =>
        flags.update(request.actor, request.params.projectId, request.params.featureName, request.body),
    );
  }

  app.post(
    "/projects/:projectId/stale",
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
    flag,
    {
      config: { permission: "DELETE_FEATURE" },
      schema: { tags, summary: "Archives a flag", params: FeatureParams, response: accepted },
    },
    async (request, reply) => {
      await flags.archive(request.actor, request.params.projectId, [request.params.featureName]);
      reply.status(202);
    },
  );

  for (const [path, permission, act, summary] of [
    ["archive", "DELETE_FEATURE", "archive", "Archives flags of the project"],
    ["revive", "UPDATE_FEATURE", "revive", "Revives archived flags of the project"],
    ["delete", "DELETE_FEATURE", "remove", "Deletes archived flags of the project for good"],
  ] as const) {
    const status = act === "archive" ? 202 : 200;
    app.post(
      `/projects/:projectId/${path}`,
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
        await flags[act](request.actor, request.params.projectId, request.body.features);
        reply.status(status);
      },
    );
  }

  app.get(
    "/archive/features",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "Every archived flag", response: { 200: FeatureList } },
    },
    async (request) => ({ version: 2, features: await flags.listArchived(request.actor) }),
  );

  app.get(
    "/archive/features/:projectId",
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
      features: await flags.listArchived(request.actor, request.params.projectId),
    }),
  );

  app.post(
    "/archive/revive/:featureName",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: { tags, summary: "Revives an archived flag", params: FeatureNameParams, response: done },
    },
    async (request) => {
      await flags.revive(request.actor, undefined, [request.params.featureName]);
    },
  );

  app.delete(
    "/archive/:featureName",
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
      await flags.remove(request.actor, undefined, [request.params.featureName]);
    },
  );

  for (const [suffix, enabled] of [
    ["on", true],
    ["off", false],
  ] as const) {
    app.post(
      `${flag}/environments/:environment/${suffix}`,
      {
        config: { permission: "UPDATE_FEATURE_ENVIRONMENT" },
        schema: {
          tags,
          summary: `Switches the flag ${suffix} in the environment`,
          params: EnvironmentParams,
          querystring: SwitchQuery,
          response: done,
        },
      },
      async (request) => {
        const activate = request.query.shouldActivateDisabledStrategies === true;
        await flags.setEnabled(request.actor, request.params, enabled, activate);
      },
    );
  }
};
