import { ApiError, ERRORS, type ErrorName } from "@signalbox/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "./logger.js";

/** An error raised while reading a request; its name, from the shared catalogue, fixes its status. */
export class RequestError extends Error {
  readonly statusCode: number;

  constructor(
    readonly kind: ErrorName,
    message: string,
  ) {
    super(message);
    this.statusCode = ERRORS[kind];
  }
}

/** A body that breaks its schema in a way Fastify's validation cannot see, reported as it would be. */
export class SchemaViolation extends Error {
  readonly validation: Array<{ instancePath: string; message: string }>;

  constructor(instancePath: string, message: string) {
    super(`body${instancePath} ${message}`);
    this.validation = [{ instancePath, message }];
  }
}

/**
 * Errors as the reference proxy answers them: JSON `{error}` for unreadable or too large bodies,
 * `{error, validation}` for schema violations, an empty 415 for a body that is not JSON,
 * and a logged 500 for anything unexpected. Statuses come from the catalogue both
 * packages share; the bodies stay the reference proxy's.
 */
export function errorHandler(logger: Logger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      return reply.code(ERRORS.ValidationError).send({
        error: `Request validation failed: ${error.message}`,
        validation: error.validation,
      });
    }
    // The flag service's refusals, on the routes that stand in for its own: its error body.
    if (error instanceof ApiError) return reply.code(error.status).send(error.toJSON());
    if (error instanceof RequestError && error.kind === "ContentTypeerror") {
      return reply.code(error.statusCode).send();
    }
    if (error instanceof RequestError) {
      return reply.code(error.statusCode).send({
        error: `We were unable to parse the data you provided. Please check it and try again: ${error.message}`,
      });
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return reply.code(ERRORS.ContentTooLarge).send({
        error: `The request body is larger than the proxy accepts here (${request.routeOptions.bodyLimit} bytes).`,
      });
    }
    const status = error.statusCode ?? ERRORS.InternalError;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
    logger.error(`${request.method} ${request.url} failed`, error);
    return reply.code(ERRORS.InternalError).send({
      error: `Whoops! We dropped the ball on this one (an unexpected error occurred): ${error.message}`,
    });
  };
}
