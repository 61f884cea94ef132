import { createHash } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  ApiError,
  frontendApiContext,
  OfrepBulkSchema,
  type OfrepEvaluation,
  OfrepFailureSchema,
  OfrepRequestSchema,
  OfrepSuccessSchema,
  ofrepFields,
} from "@signalbox/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { tokenCaller } from "../../../http/auth.js";
import type { ClientStreams } from "../../client-api/streams.js";
import { browserCors } from "../routes.js";
import type { FrontendService } from "../service.js";

const tags = ["OpenFeature (OFREP)"];
const config = { auth: "frontend" as const, apiKeyHeader: true };

/**
 * An evaluation request OFREP calls malformed, in its words: the body (PARSE_ERROR) or the
 * context (INVALID_CONTEXT). The change stream's refusals, which OFREP does not word, are
 * the service's.
 */
function ofrepErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (!request.routeOptions.url?.startsWith("/ofrep/v1/evaluate/")) throw error;
  const key = (request.params as { key?: string } | undefined)?.key;
  const refusal = (errorCode: string, errorDetails: string) =>
    reply.code(400).send({ ...(key === undefined ? {} : { key }), errorCode, errorDetails });
  if (error.validation || (error instanceof ApiError && error.name === "ValidationError")) {
    return refusal("INVALID_CONTEXT", error.message);
  }
  if (error.code?.startsWith("FST_ERR_CTP_")) return refusal("PARSE_ERROR", error.message);
  // Anything else (a refused token above all) is answered as everywhere else on the service.
  throw error;
}

/** The token the caller sent, as the service read it (http/auth.ts). */
const secretOf = (request: FastifyRequest): string => {
  const sent =
    request.headers.authorization ?? request.headers["x-api-key"] ?? (request.query as { key?: string }).key;
  const secret = String(sent);
  return secret.startsWith("Bearer ") ? secret.slice(7) : secret;
};

const contextOf = (request: FastifyRequest<{ Body: { context?: Record<string, unknown> } }>) =>
  frontendApiContext(ofrepFields(request.body?.context ?? {}), request.ip);

/**
 * OpenFeature's remote evaluation protocol (OFREP 0.3.0) with the service's frontend tokens
 * (in `Authorization`, with or without `Bearer`, or in `X-API-Key`): what a frontend token
 * sees, evaluated with the frontend API's context rules, answered as OpenFeature values
 * (the protocol package's mapping). Browsers may call it as they call the frontend API.
 */
export const ofrepRoutes: FastifyPluginAsyncTypebox<{
  frontend: FrontendService;
  streams: ClientStreams;
  origins: string[];
}> = async (app, { frontend, streams, origins }) => {
  await browserCors(app, origins, "/ofrep/*");
  app.setErrorHandler(ofrepErrors);

  app.post(
    "/ofrep/v1/evaluate/flags/:key",
    {
      config,
      schema: {
        tags,
        summary: "One flag evaluated for the context, as an OpenFeature value",
        params: Type.Object({ key: Type.String() }),
        body: OfrepRequestSchema,
        response: {
          200: OfrepSuccessSchema,
          400: {
            ...OfrepFailureSchema,
            description:
              "The context is invalid, lacks a targeting key the flag needs, or the payload cannot be read as its type.",
          },
          404: {
            ...OfrepFailureSchema,
            description: "No flag of that key is visible to the token (FLAG_NOT_FOUND).",
          },
        },
      },
    },
    async (request, reply) => {
      const [result] = await frontend.ofrep(tokenCaller(request), contextOf(request), request.params.key);
      const failure = result as Extract<OfrepEvaluation, { errorCode: string }>;
      if (failure.errorCode !== undefined) reply.code(failure.errorCode === "FLAG_NOT_FOUND" ? 404 : 400);
      return result;
    },
  );

  app.post(
    "/ofrep/v1/evaluate/flags",
    {
      config,
      schema: {
        tags,
        summary: "Every flag the token sees evaluated for the context, as OpenFeature values",
        description:
          "A flag that cannot be answered is an inline failure. The weak ETag is the answer's; `If-None-Match` holding it gives 304.",
        headers: Type.Object({ "if-none-match": Type.Optional(Type.String()) }),
        body: OfrepRequestSchema,
        response: {
          200: OfrepBulkSchema,
          304: Type.Null({ description: "The answer would be the one whose ETag was sent." }),
          400: { ...OfrepFailureSchema, description: "The context is invalid or the body cannot be read." },
        },
      },
    },
    async (request, reply) => {
      const flags = await frontend.ofrep(tokenCaller(request), contextOf(request));
      // The change stream, with the caller's token: a browser's EventSource sends no headers.
      const requestUri = `/ofrep/v1/events?key=${encodeURIComponent(secretOf(request))}`;
      const eventStreams = [{ type: "sse", endpoint: { requestUri }, inactivityDelaySec: 120 }];
      const body = JSON.stringify({ flags, eventStreams });
      const etag = `W/"${createHash("sha1").update(body).digest("base64url")}"`;
      reply.header("etag", etag).header("cache-control", "no-cache");
      if (request.headers["if-none-match"] === etag) return reply.code(304).send(null);
      // Already serialised, for its ETag: sent as it is.
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );

  app.get(
    "/ofrep/v1/events",
    {
      config,
      schema: {
        tags,
        summary: "OpenFeature's change notification: an event after each change the token sees",
        description:
          "Server-sent events (OFREP ADR-0008): `event: message` with `{type: refetchEvaluation, etag, lastModified}` after each change in the token's environment and projects; fetch the bulk evaluation again. The token may come in `key`, as a browser's EventSource sends no headers. The stream ends when the token is revoked; 429 past the instance's limit of streams.",
        querystring: Type.Object({ key: Type.Optional(Type.String()) }),
        headers: Type.Object({ "last-event-id": Type.Optional(Type.String()) }),
        response: {
          200: {
            description: "Server-sent events.",
            content: { "text/event-stream": { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      if (streams.full) {
        throw new ApiError("RateLimitError", "This instance holds as many streams as it may: poll instead.");
      }
      const last = Number(request.headers["last-event-id"]);
      const opening = await streams.prepare(
        tokenCaller(request),
        secretOf(request),
        {},
        Number.isInteger(last) && last >= 0 ? last : undefined,
        "ofrep",
      );
      const headers = reply.getHeaders() as OutgoingHttpHeaders;
      reply.hijack();
      streams.start(reply.raw, opening, headers);
    },
  );
};
