import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { anyTokenPermission } from "./permissions.js";
import {
  CreatedToken,
  NewToken,
  Token,
  TokenExpiry,
  TokenKey,
  TokenList,
  TokensToValidate,
  ValidatedTokens,
} from "./schemas.js";
import type { TokenService } from "./service.js";

const tags = ["API tokens"];

/**
 * API tokens, under /api/admin/api-tokens. A route admits anyone who may handle some type of
 * token; the service then asks for the permission of the type at hand.
 */
export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokens: TokenService }> = async (app, { tokens }) => {
  app.get(
    "/api/admin/api-tokens",
    {
      schema: { tags, summary: "List the API tokens the caller may see", response: { 200: TokenList } },
      config: { permission: anyTokenPermission("read") },
    },
    async (request) => ({ tokens: await tokens.list(request.actor) }),
  );

  app.post(
    "/api/admin/api-tokens",
    {
      schema: { tags, summary: "Create an API token", body: NewToken, response: { 201: CreatedToken } },
      config: { permission: anyTokenPermission("create") },
    },
    async (request, reply) => {
      const created = await tokens.create(request.actor, request.body);
      return reply.status(201).header("location", `api-tokens/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/api-tokens/:token",
    {
      schema: {
        tags,
        summary: "Change when an API token expires",
        params: TokenKey,
        body: TokenExpiry,
        response: { 200: Token },
      },
      config: { permission: anyTokenPermission("update") },
    },
    (request) => tokens.updateExpiry(request.actor, request.params.token, request.body.expiresAt),
  );

  app.delete(
    "/api/admin/api-tokens/:token",
    {
      schema: {
        tags,
        summary: "Delete an API token, by id or by its secret",
        params: TokenKey,
        response: { 200: Type.Null() },
      },
      config: { permission: anyTokenPermission("delete") },
    },
    async (request) => {
      await tokens.remove(request.actor, request.params.token);
    },
  );
};

/**
 * `/edge/validate`, as the reference answers Unleash Edge: which of the secrets sent are
 * tokens an SDK may use, with their scope. It needs no credentials, as the reference's does
 * not: only the holder of a secret learns anything about it.
 */
export const edgeRoutes: FastifyPluginAsyncTypebox<{ tokens: TokenService }> = async (app, { tokens }) => {
  app.post(
    "/edge/validate",
    {
      schema: {
        tags: ["Unleash Edge"],
        summary: "Which tokens are valid, with their type, projects and environment",
        body: TokensToValidate,
        response: { 200: ValidatedTokens },
      },
      config: { auth: "public" },
    },
    async (request) => ({ tokens: await tokens.validate(request.body.tokens) }),
  );
};
