import {
  OfrepBulkSchema,
  type OfrepEvaluation,
  OfrepFailureSchema,
  OfrepRequestSchema,
  OfrepSuccessSchema,
} from "@signalbox/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { matchesEtag } from "./etag.js";
import type { Evaluations } from "./evaluation.js";
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
  { basePath, evaluations }: { basePath: string; evaluations: Evaluations },
) {
  const base = `${basePath}/ofrep/v1/evaluate/flags`;
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
      const { body, etag } = await evaluations.ofrepAll({
        input: request.body?.context,
        clientAddress: clientAddress(request),
      });
      reply.header("etag", etag).header("cache-control", "no-cache");
      if (matchesEtag(request.headers["if-none-match"], etag)) return reply.code(304).send(null);
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );
}
