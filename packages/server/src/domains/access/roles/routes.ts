import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { NewRole, PermissionCatalogue, RoleId, RoleList, RoleWithPermissions } from "./schemas.js";
import type { RoleHolders, RoleService } from "./service.js";

const tags = ["Roles"];

/** Roles under /api/admin/roles, and the catalogue of permissions at /api/admin/permissions. */
export const roleRoutes: FastifyPluginAsyncTypebox<{ roles: RoleService; holders: RoleHolders }> = async (
  app,
  { roles, holders },
) => {
  app.get(
    "/api/admin/roles",
    {
      schema: { tags, summary: "List the predefined and custom roles", response: { 200: RoleList } },
      config: { permission: "READ_ROLE" },
    },
    async (request) => ({ version: 1 as const, roles: await roles.list(request.actor) }),
  );

  app.get(
    "/api/admin/roles/:id",
    {
      schema: {
        tags,
        summary: "Get a role with its permissions",
        params: RoleId,
        response: { 200: RoleWithPermissions },
      },
      config: { permission: "READ_ROLE" },
    },
    (request) => roles.get(request.actor, request.params.id),
  );

  app.post(
    "/api/admin/roles",
    {
      schema: {
        tags,
        summary: "Create a custom root role (root-custom) or custom project role (custom)",
        body: NewRole,
        response: { 201: RoleWithPermissions },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const created = await roles.create(request.actor, request.body);
      return reply.status(201).header("location", `roles/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/roles/:id",
    {
      schema: {
        tags,
        summary: "Change a custom role: its name, description and, when given, permissions",
        params: RoleId,
        body: NewRole,
        response: { 200: RoleWithPermissions },
      },
      config: { permission: "ADMIN" },
    },
    (request) => roles.update(request.actor, request.params.id, request.body, holders),
  );

  app.delete(
    "/api/admin/roles/:id",
    {
      schema: {
        tags,
        summary: "Delete a custom role that no user, group or project membership holds",
        params: RoleId,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await roles.remove(request.actor, request.params.id, holders);
    },
  );

  app.post(
    "/api/admin/roles/validate",
    {
      schema: {
        tags,
        summary: "Check that a new custom role could be made as described",
        body: NewRole,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await roles.validate(request.actor, request.body);
    },
  );

  app.get(
    "/api/admin/permissions",
    {
      schema: {
        tags,
        summary: "The permissions custom roles can hold, environment permissions per environment",
        response: { 200: PermissionCatalogue },
      },
      config: { permission: "READ_ROLE" },
    },
    async (request) => ({ version: 1 as const, permissions: await roles.catalogue(request.actor) }),
  );
};
