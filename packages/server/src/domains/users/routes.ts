import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { UserActor } from "../../access/actor.js";
import { sessionCookie } from "../sessions/cookie.js";
import {
  Me,
  NewPassword,
  NewUser,
  PasswordChange,
  PasswordReset,
  Profile,
  ResetLink,
  ResetRequest,
  ResetTokenQuery,
  ResetTokenUser,
  User,
  UserChanges,
  UserId,
  UserList,
} from "./schemas.js";
import type { UserService } from "./service.js";

const tags = ["Users"];

/** People, under /api/admin/user-admin: an admin's to manage. */
export const userAdminRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {
  app.get(
    "/api/admin/user-admin",
    {
      schema: {
        tags,
        summary: "List the users, with the root roles they can be given",
        response: { 200: UserList },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => ({
      users: await users.list(request.actor),
      rootRoles: await users.rootRoles(request.actor),
    }),
  );

  app.get(
    "/api/admin/user-admin/:id",
    {
      schema: { tags, summary: "Get a user", params: UserId, response: { 200: User } },
      config: { permission: "ADMIN" },
    },
    (request) => users.get(request.actor, request.params.id),
  );

  app.post(
    "/api/admin/user-admin",
    {
      schema: {
        tags,
        summary: "Create a user, with a username or an email (or both) and a root role",
        body: NewUser,
        response: { 201: User },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const created = await users.create(request.actor, request.body);
      return reply.status(201).header("location", `user-admin/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/user-admin/:id",
    {
      schema: {
        tags,
        summary: "Change a user's name, email or root role, or deactivate them (isActive: false)",
        params: UserId,
        body: UserChanges,
        response: { 200: User },
      },
      config: { permission: "ADMIN" },
    },
    (request) => users.update(request.actor, request.params.id, request.body),
  );

  app.delete(
    "/api/admin/user-admin/:id",
    {
      schema: {
        tags,
        summary: "Delete a user: their sessions and personal access tokens stop working at once",
        params: UserId,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await users.remove(request.actor, request.params.id);
    },
  );

  app.post(
    "/api/admin/user-admin/:id/change-password",
    {
      schema: {
        tags,
        summary: "Set a user's password; their sessions end",
        params: UserId,
        body: NewPassword,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await users.setPassword(request.actor, request.params.id, request.body.password);
    },
  );

  app.post(
    "/api/admin/user-admin/validate-password",
    {
      schema: {
        tags,
        summary: "Check a password against the password policy",
        body: NewPassword,
        response: { 200: Type.Null() },
      },
      config: { permission: "NONE" },
    },
    async (request) => {
      users.validatePassword(request.body.password);
    },
  );

  app.post(
    "/api/admin/user-admin/reset-password",
    {
      schema: {
        tags,
        summary: "Make a link (valid for 24 hours, usable once) with which a user sets a new password",
        body: ResetRequest,
        response: { 200: ResetLink },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      const token = await users.createResetToken(request.actor, request.body.id);
      const query = new URLSearchParams({ token });
      return { resetPasswordUrl: `${origin(request)}/auth/reset/validate?${query}` };
    },
  );
};

// The link is given to the admin who asked for it, so the address they used is the one to give.
const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** The caller themself, under /api/admin/user: a person, never an API token. */
export const currentUserRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (
  app,
  { users },
) => {
  app.get(
    "/api/admin/user",
    {
      schema: {
        tags,
        summary: "Who the caller is and what they may do",
        response: { 200: Me },
      },
      config: { permission: "NONE", person: true },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return users.me(request.actor as UserActor);
    },
  );

  app.get(
    "/api/admin/user/profile",
    {
      schema: {
        tags,
        summary: "The caller's root role and the projects they are a member of",
        response: { 200: Profile },
      },
      config: { permission: "NONE", person: true },
    },
    (request) => users.profile(request.actor as UserActor),
  );

  app.post(
    "/api/admin/user/change-password",
    {
      schema: {
        tags,
        summary: "Change your own password, giving the old one; your other sessions end",
        body: PasswordChange,
        response: { 200: Type.Null() },
      },
      config: { permission: "NONE", person: true },
    },
    async (request) => {
      const actor = request.actor as UserActor;
      // Only a change made from a session keeps it; one made with a token keeps none, whatever cookie came along.
      const current = actor.via === "session" ? sessionCookie(request) : undefined;
      await users.changeOwnPassword(actor, request.body, current);
    },
  );
};

/** Setting a new password with a reset link, under /auth/reset: whoever holds the link. */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (
  app,
  { users },
) => {
  const auth = ["Auth"];

  app.get(
    "/auth/reset/validate",
    {
      schema: {
        tags: auth,
        summary: "Whom a reset link is for, while it is valid",
        querystring: ResetTokenQuery,
        response: { 200: ResetTokenUser },
      },
      config: { auth: "public" },
    },
    (request) => users.resetTokenUser(request.query.token),
  );

  app.post(
    "/auth/reset/password",
    {
      schema: {
        tags: auth,
        summary: "Set a new password with a reset link; the link and the user's sessions end",
        body: PasswordReset,
        response: { 200: Type.Null() },
      },
      config: { auth: "public" },
    },
    async (request) => {
      await users.resetPassword(request.body.token, request.body.password);
    },
  );

  app.post(
    "/auth/reset/validate-password",
    {
      schema: {
        tags: auth,
        summary: "Check a password against the password policy",
        body: NewPassword,
        response: { 200: Type.Null() },
      },
      config: { auth: "public" },
    },
    async (request) => {
      users.validatePassword(request.body.password);
    },
  );
};
