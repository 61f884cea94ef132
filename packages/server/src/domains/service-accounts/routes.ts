import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { User, UserId } from "../users/schemas.js";
import type { UserService } from "../users/service.js";
import { NewServiceAccount, ServiceAccountChanges, ServiceAccountList } from "./schemas.js";

const tags = ["Service accounts"];

/**
 * Service accounts, under /api/admin/service-account: users that never log in and act
 * through their personal access tokens, with the permissions of their root role.
 */
export const serviceAccountRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (
  app,
  { users },
) => {
  app.get(
    "",
    {
      schema: {
        tags,
        summary: "List the service accounts, with the root roles they can be given",
        response: { 200: ServiceAccountList },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => ({
      serviceAccounts: await users.list(request.actor, "service"),
      rootRoles: await users.rootRoles(request.actor),
    }),
  );

  app.post(
    "",
    {
      schema: { tags, summary: "Create a service account", body: NewServiceAccount, response: { 201: User } },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const { username, name, rootRole } = request.body;
      const created = await users.create(request.actor, { username, name, rootRole, isService: true });
      return reply.status(201).header("location", `service-account/${created.id}`).send(created);
    },
  );

  app.put(
    "/:id",
    {
      schema: {
        tags,
        summary: "Change a service account's name or root role",
        params: UserId,
        body: ServiceAccountChanges,
        response: { 200: User },
      },
      config: { permission: "ADMIN" },
    },
    (request) => {
      const { name, rootRole } = request.body;
      return users.update(request.actor, request.params.id, { name, rootRole }, "service");
    },
  );

  app.delete(
    "/:id",
    {
      schema: {
        tags,
        summary: "Delete a service account: its tokens stop working at once",
        params: UserId,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await users.remove(request.actor, request.params.id, "service");
    },
  );
};
