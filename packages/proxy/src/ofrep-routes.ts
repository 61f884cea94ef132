import type { OutgoingHttpHeaders } from "node:http";
import {
  OfrepBulkSchema,
  type OfrepEvaluation,
  OfrepFailureSchema,
  OfrepRequestSchema,
  OfrepSuccessSchema,
} from "@signalbox/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { matchesEtag, type Piece, pieceOf } from "./etag.js";
import type { Evaluations } from "./evaluation.js";
import { ofrepKey } from "./guard.js";
import type { OfrepChanges } from "./ofrep-changes.js";
import type { App } from "./routes.js";

/** A body OFREP calls malformed, in its words; anything else as the proxy answers it elsewhere. */
function ofrepErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const key = (request.params as { key?: string } | undefined)?.key;
  const refusal = (errorCode: string) =>
    reply.code(400).send({ ...(key === undefined ? {} : { key }), errorCode, errorDetails: error.message });
  if (error.validation) return refusal("INVALID_CONTEXT");
  if (error.statusCode === 400 || error.code?.startsWith("FST_ERR_CTP_")) return refusal("PARSE_ERROR");
  throw error;
}

const failed = (result: OfrepEvaluation): result is Extract<OfrepEvaluation, { errorCode: string }> =>
  "errorCode" in result;

/**
 * OpenFeature's remote evaluation protocol (OFREP 0.3.0) with the proxy's client keys
 * (`Authorization`, with or without `Bearer`, or `X-API-Key`), over the proxy's own
 * configuration and context rules; values and reasons as the flag service answers them
 * (the protocol package's mapping).
 */
export function ofrepRoutes(
  app: App,
  { basePath, evaluations, changes }: { basePath: string; evaluations: Evaluations; changes: OfrepChanges },
) {
  const base = `${basePath}/ofrep/v1/evaluate/flags`;
  const events = `${basePath}/ofrep/v1/events`;
  // The end of a bulk answer names the change stream, with the caller's key (a browser's
  // EventSource sends no headers); one per key, and keys are the proxy's own.
  const closings = new Map<string, Piece>();
  const closing = (key: string) => {
    let piece = closings.get(key);
    if (!piece) {
      const stream = {
        type: "sse",
        endpoint: { requestUri: `${events}?key=${encodeURIComponent(key)}` },
        inactivityDelaySec: 120,
      };
      piece = pieceOf(`],"eventStreams":${JSON.stringify([stream])}}`);
      closings.set(key, piece);
    }
    return piece;
  };
  const config = { access: "ofrep" as const };
  const clientAddress = (request: FastifyRequest) => () => request.ip;

  app.post(
    `${base}/:key`,
    {
      config,
      errorHandler: ofrepErrors,
      schema: {
        summary: "One flag evaluated for the context, as an OpenFeature value",
        params: Type.Object({ key: Type.String() }),
        body: OfrepRequestSchema,
        response: { 200: OfrepSuccessSchema, 400: OfrepFailureSchema, 404: OfrepFailureSchema },
      },
    },
    async (request, reply) => {
      const result = await evaluations.ofrep({
        input: request.body?.context,
        clientAddress: clientAddress(request),
        key: request.params.key,
      });
      if (failed(result)) reply.code(result.errorCode === "FLAG_NOT_FOUND" ? 404 : 400);
      return result;
    },
  );

  app.post(
    base,
    {
      config,
      errorHandler: ofrepErrors,
      schema: {
        summary: "Every flag evaluated for the context, as OpenFeature values",
        description: "The weak ETag is the answer's; `If-None-Match` holding it gives 304.",
        body: OfrepRequestSchema,
        response: { 200: OfrepBulkSchema, 304: Type.Null(), 400: OfrepFailureSchema },
      },
    },
    async (request, reply) => {
      const { body, etag } = await evaluations.ofrepAll(
        { input: request.body?.context, clientAddress: clientAddress(request) },
        closing(ofrepKey(request)!),
      );
      reply.header("etag", etag).header("cache-control", "no-cache");
      if (matchesEtag(request.headers["if-none-match"], etag)) return reply.code(304).send(null);
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );

  app.get(
    events,
    {
      config,
      schema: {
        summary: "OpenFeature's change notification: a server-sent event after each new configuration",
        description:
          "Each event's data is `{type: refetchEvaluation, etag, lastModified}`: fetch the bulk evaluation again. The key may come in `key`, as a browser's EventSource sends no headers. 429 past the proxy's limit of streams.",
        querystring: Type.Object({ key: Type.Optional(Type.String()) }),
        response: {
          200: {
            description: "Server-sent events.",
            content: { "text/event-stream": { schema: Type.String() } },
          },
          429: Type.Null({ description: "As many streams as the proxy holds: keep polling." }),
        },
      },
    },
    (request, reply) => {
      if (changes.full) {
        reply.code(429).send(null);
        return;
      }
      const headers = reply.getHeaders() as OutgoingHttpHeaders;
      reply.hijack();
      const lastEventId = request.headers["last-event-id"];
      changes.open(reply.raw, typeof lastEventId === "string" ? lastEventId : undefined, headers);
    },
  );
}
