import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  NewTagType,
  OneTagType,
  TagType,
  TagTypeChanges,
  TagTypeList,
  TagTypeName,
  TagTypeValidation,
} from "./schemas.js";
import type { TagTypeService } from "./service.js";

const tags = ["Tags"];

/** The kinds of tag flags can carry, under /api/admin/tag-types. */
export const tagTypeRoutes: FastifyPluginAsyncTypebox<{ tagTypes: TagTypeService }> = async (
  app,
  { tagTypes },
) => {
  app.get(
    "/api/admin/tag-types",
    {
      schema: { tags, summary: "List the tag types", response: { 200: TagTypeList } },
      config: { permission: "NONE" },
    },
    async (request) => ({ version: 1 as const, tagTypes: await tagTypes.list(request.actor) }),
  );

  app.get(
    "/api/admin/tag-types/:name",
    {
      schema: { tags, summary: "Get a tag type", params: TagTypeName, response: { 200: OneTagType } },
      config: { permission: "NONE" },
    },
    async (request) => ({
      version: 1 as const,
      tagType: await tagTypes.get(request.actor, request.params.name),
    }),
  );

  app.post(
    "/api/admin/tag-types",
    {
      schema: { tags, summary: "Create a tag type", body: NewTagType, response: { 201: TagType } },
      config: { permission: "CREATE_TAG_TYPE" },
    },
    async (request, reply) => {
      const created = await tagTypes.create(request.actor, request.body);
      return reply.status(201).header("location", `tag-types/${created.name}`).send(created);
    },
  );

  app.put(
    "/api/admin/tag-types/:name",
    {
      schema: {
        tags,
        summary: "Change a tag type's description or icon",
        params: TagTypeName,
        body: TagTypeChanges,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_TAG_TYPE" },
    },
    async (request) => {
      await tagTypes.update(request.actor, request.params.name, request.body);
    },
  );

  app.delete(
    "/api/admin/tag-types/:name",
    {
      schema: {
        tags,
        summary: "Delete a tag type and every tag of that type",
        params: TagTypeName,
        response: { 200: Type.Null() },
      },
      config: { permission: "DELETE_TAG_TYPE" },
    },
    async (request) => {
      await tagTypes.remove(request.actor, request.params.name);
    },
  );

  app.post(
    "/api/admin/tag-types/validate",
    {
      schema: {
        tags,
        summary: "Check that a new tag type could take a name",
        body: NewTagType,
        response: { 200: TagTypeValidation },
      },
      config: { permission: "NONE" },
    },
    async (request) => {
      await tagTypes.validateName(request.actor, request.body.name);
      const { name, description = null, icon = null } = request.body;
      return { valid: true as const, tagType: { name, description, icon } };
    },
  );
};
