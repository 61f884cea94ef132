import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  CreatedPersonalToken,
  NewPersonalToken,
  PersonalTokenKey,
  PersonalTokenList,
  ServiceAccountKey,
  ServiceAccountTokenKey,
} from "./schemas.js";
import type { PersonalTokenService } from "./service.js";

/**
 * The caller's own personal access tokens, under /api/admin/user/tokens. Any person may
 * hold some (permission NONE); API tokens, which belong to no one, are refused.
 */
export const personalTokenRoutes: FastifyPluginAsyncTypebox<{
  personalTokens: PersonalTokenService;
}> = async (app, { personalTokens }) => {
  const tags = ["Personal access tokens"];

  app.get(
    "/api/admin/user/tokens",
    {
      schema: {
        tags,
        summary: "List the caller's personal access tokens",
        response: { 200: PersonalTokenList },
      },
      config: { permission: "NONE", person: true },
    },
    async (request) => ({ pats: await personalTokens.list(request.actor) }),
  );

  app.post(
    "/api/admin/user/tokens",
    {
      schema: {
        tags,
        summary:
          "Create a personal access token for the caller, who must be logged in: a token cannot make tokens",
        body: NewPersonalToken,
        response: { 201: CreatedPersonalToken },
      },
      config: { permission: "NONE", person: true },
    },
    async (request, reply) => {
      const created = await personalTokens.create(request.actor, request.body);
      return reply.status(201).header("location", `tokens/${created.id}`).send(created);
    },
  );

  app.delete(
    "/api/admin/user/tokens/:id",
    {
      schema: {
        tags,
        summary: "Delete one of the caller's personal access tokens",
        params: PersonalTokenKey,
        response: { 200: Type.Null() },
      },
      config: { permission: "NONE", person: true },
    },
    async (request) => {
      await personalTokens.remove(request.actor, request.params.id);
    },
  );
};

/** Service accounts' tokens, under /api/admin/service-account/:id/token: an admin's to give and take. */
export const serviceAccountTokenRoutes: FastifyPluginAsyncTypebox<{
  personalTokens: PersonalTokenService;
}> = async (app, { personalTokens }) => {
  const tags = ["Service accounts"];

  app.get(
    "/api/admin/service-account/:id/token",
    {
      schema: {
        tags,
        summary: "List a service account's tokens",
        params: ServiceAccountKey,
        response: { 200: PersonalTokenList },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => ({
      pats: await personalTokens.listForServiceAccount(request.actor, request.params.id),
    }),
  );

  app.post(
    "/api/admin/service-account/:id/token",
    {
      schema: {
        tags,
        summary: "Create a token for a service account",
        params: ServiceAccountKey,
        body: NewPersonalToken,
        response: { 201: CreatedPersonalToken },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const created = await personalTokens.createForServiceAccount(
        request.actor,
        request.params.id,
        request.body,
      );
      return reply.status(201).header("location", `token/${created.id}`).send(created);
    },
  );

  app.delete(
    "/api/admin/service-account/:id/token/:tokenId",
    {
      schema: {
        tags,
        summary: "Delete a service account's token",
        params: ServiceAccountTokenKey,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await personalTokens.removeForServiceAccount(request.actor, request.params.id, request.params.tokenId);
    },
  );
};
