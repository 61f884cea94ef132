import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { FeatureNameParams } from "../params.js";
import { BulkTagChanges, FeatureTag, Tag, TagChanges, TagParams, TagsReply } from "./schemas.js";
import type { FeatureTagService } from "./service.js";

const tags = ["Tags"];

/** The reference's paths name the flag without its project. */
export const featureTagRoutes: FastifyPluginAsyncTypebox<{ featureTags: FeatureTagService }> = async (
  app,
  { featureTags },
) => {
  app.get(
    "/api/admin/features/:featureName/tags",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "A flag's tags", params: FeatureNameParams, response: { 200: TagsReply } },
    },
    async (request) => ({
      version: 1,
      tags: await featureTags.list(request.actor, request.params.featureName),
    }),
  );

  app.post(
    "/api/admin/features/:featureName/tags",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Tags a flag",
        params: FeatureNameParams,
        body: Tag,
        response: { 201: FeatureTag },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await featureTags.add(request.actor, request.params.featureName, request.body)),
  );

  app.put(
    "/api/admin/features/:featureName/tags",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Adds and removes tags of a flag",
        params: FeatureNameParams,
        body: TagChanges,
        response: { 200: TagsReply },
      },
    },
    async (request) => {
      const { addedTags = [], removedTags = [] } = request.body;
      await featureTags.change(request.actor, [request.params.featureName], addedTags, removedTags);
      return { version: 1, tags: await featureTags.list(request.actor, request.params.featureName) };
    },
  );

  app.delete(
    "/api/admin/features/:featureName/tags/:type/:value",
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Removes a tag from a flag",
        params: TagParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { featureName, type, value } = request.params;
      await featureTags.remove(request.actor, featureName, { type, value });
    },
  );

  for (const method of ["post", "put"] as const) {
    app[method](
      "/api/admin/tags/features",
      {
        config: { permission: "UPDATE_FEATURE" },
        schema: {
          tags,
          summary: "Adds and removes tags of several flags at once",
          body: BulkTagChanges,
          response: { 200: Type.Null() },
        },
      },
      async (request) => {
        const { addedTags = [], removedTags = [] } = request.body.tags;
        await featureTags.change(request.actor, request.body.features, addedTags, removedTags);
      },
    );
  }
};
