import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { Group, GroupId, GroupList, NewGroup } from "./schemas.js";
import type { GroupService } from "./service.js";

const tags = ["Users"];

/** Groups of users, under /api/admin/groups. */
export const groupRoutes: FastifyPluginAsyncTypebox<{ groups: GroupService }> = async (app, { groups }) => {
  app.get(
    "/api/admin/groups",
    {
      schema: { tags, summary: "List the groups with their users", response: { 200: GroupList } },
      config: { permission: "NONE" },
    },
    async (request) => ({ groups: await groups.list(request.actor) }),
  );

  app.get(
    "/api/admin/groups/:groupId",
    {
      schema: { tags, summary: "Get a group with its users", params: GroupId, response: { 200: Group } },
      config: { permission: "NONE" },
    },
    (request) => groups.get(request.actor, request.params.groupId),
  );

  app.post(
    "/api/admin/groups",
    {
      schema: {
        tags,
        summary: "Create a group, with a root role its users hold through it",
        body: NewGroup,
        response: { 201: Group },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const created = await groups.create(request.actor, request.body);
      return reply.status(201).header("location", `groups/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/groups/:groupId",
    {
      schema: {
        tags,
        summary: "Change a group: fields left out keep their value; users, when given, are all its users",
        params: GroupId,
        body: NewGroup,
        response: { 200: Group },
      },
      config: { permission: "ADMIN" },
    },
    (request) => groups.update(request.actor, request.params.groupId, request.body),
  );

  app.delete(
    "/api/admin/groups/:groupId",
    {
      schema: {
        tags,
        summary: "Delete a group, and the project roles it held",
        params: GroupId,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await groups.remove(request.actor, request.params.groupId);
    },
  );
};
