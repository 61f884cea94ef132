import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { Permission } from "../../../access/permissions.js";
import {
  AccessConfiguration,
  NewAccess,
  ProjectAccess,
  ProjectGroup,
  ProjectGroupRole,
  ProjectId,
  ProjectUser,
  ProjectUserRole,
  RoleAssignment,
} from "./schemas.js";
import type { MemberService } from "./service.js";

const tags = ["Projects"];
const done = { 200: Type.Null() };
const READ: readonly Permission[] = ["PROJECT_USER_ACCESS_READ", "UPDATE_PROJECT"];
const WRITE: readonly Permission[] = ["PROJECT_USER_ACCESS_WRITE", "UPDATE_PROJECT"];

/** Who holds which roles in a project, under /api/admin/projects/:projectId. */
export const memberRoutes: FastifyPluginAsyncTypebox<{ members: MemberService }> = async (
  app,
  { members },
) => {
  app.get(
    "/api/admin/projects/:projectId/access",
    {
      schema: {
        tags,
        summary: "The project's users and groups with their roles, and the roles that can be given",
        params: ProjectId,
        response: { 200: ProjectAccess },
      },
      config: { permission: READ },
    },
    (request) => members.access(request.actor, request.params.projectId),
  );

  app.post(
    "/api/admin/projects/:projectId/access",
    {
      schema: {
        tags,
        summary: "Give each of the roles to each of the users and groups",
        params: ProjectId,
        body: NewAccess,
        response: done,
      },
      config: { permission: WRITE },
    },
    async (request) => {
      await members.addAccess(request.actor, request.params.projectId, request.body);
    },
  );

  app.put(
    "/api/admin/projects/:projectId/access",
    {
      schema: {
        tags,
        summary:
          "Set the whole of the project's access, role by role: users and groups no role names lose theirs",
        params: ProjectId,
        body: AccessConfiguration,
        response: done,
      },
      config: { permission: WRITE },
    },
    async (request) => {
      await members.setAccess(request.actor, request.params.projectId, request.body);
    },
  );

  for (const kind of ["user", "group"] as const) {
    const Params = kind === "user" ? ProjectUser : ProjectGroup;
    const RoleParams = kind === "user" ? ProjectUserRole : ProjectGroupRole;
    const holder = (params: { userId?: number; groupId?: number }) => ({
      kind,
      id: (kind === "user" ? params.userId : params.groupId) as number,
    });
    const [path, rolePath] =
      kind === "user"
        ? [
            "/api/admin/projects/:projectId/users/:userId/roles",
            "/api/admin/projects/:projectId/users/:userId/roles/:roleId",
          ]
        : [
            "/api/admin/projects/:projectId/groups/:groupId/roles",
            "/api/admin/projects/:projectId/groups/:groupId/roles/:roleId",
          ];

    app.put(
      path,
      {
        schema: {
          tags,
          summary: `Set the ${kind}'s roles in the project: an empty list takes them all away`,
          params: Params,
          body: RoleAssignment,
          response: done,
        },
        config: { permission: WRITE },
      },
      async (request) => {
        await members.setRoles(
          request.actor,
          request.params.projectId,
          holder(request.params),
          request.body.roles,
        );
      },
    );

    app.delete(
      path,
      {
        schema: {
          tags,
          summary: `Take every role in the project away from the ${kind}`,
          params: Params,
          response: done,
        },
        config: { permission: WRITE },
      },
      async (request) => {
        await members.removeAll(request.actor, request.params.projectId, holder(request.params));
      },
    );

    app.post(
      rolePath,
      {
        schema: {
          tags,
          summary: `Give the ${kind} one role in the project`,
          params: RoleParams,
          response: done,
        },
        config: { permission: WRITE },
      },
      async (request) => {
        const { projectId, roleId } = request.params;
        await members.addRole(request.actor, projectId, holder(request.params), roleId);
      },
    );

    app.delete(
      rolePath,
      {
        schema: {
          tags,
          summary: `Take one role in the project away from the ${kind}`,
          params: RoleParams,
          response: done,
        },
        config: { permission: WRITE },
      },
      async (request) => {
        const { projectId, roleId } = request.params;
        await members.removeRole(request.actor, projectId, holder(request.params), roleId);
      },
    );
  }
};
