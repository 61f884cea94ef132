import { ApiError } from "@signalbox/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

// Fastify's own failures (parsing, limits, schema validation) are given the spec's names.
function fromFastify(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  if (error.validation) {
    const details = error.validation.map((issue) => {
      const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
      const missing = (issue.params as { missingProperty?: string }).missingProperty;
      const field = [path, missing].filter(Boolean).join(".");
      return field
        ? { message: `${field} ${issue.message ?? "is invalid"}`, path: field }
        : { message: issue.message ?? "is invalid" };
    });
    return new ApiError(
      "ValidationError",
      "Request validation failed: the request does not match the schema.",
      details,
    );
  }
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError(
        "ContentTooLarge",
        `The request body is larger than the server accepts here (${request.routeOptions.bodyLimit} bytes; the BODY_LIMIT setting raises it).`,
      );
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError(
        "ContentTypeerror",
        "The request body must be sent with Content-Type: application/json.",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new ApiError("ValidationError", "The request body is not valid JSON.", [
        { message: error.message },
      ]);
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError("ValidationError", error.message);
  }
  return undefined;
}

/**
 * The net under the schemas: a value the database refuses because of what was sent is the
 * sender's error, answered 400 (or 409 for a duplicate that a check missed), never 500.
 * Logged, since each one is a validation that belongs in a schema or a service.
 */
function fromDatabase(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string" || !/^(22|23|54)[0-9A-Z]{3}$/.test(code)) return undefined;
  request.log.warn(
    { code, route: request.routeOptions.url },
    "the database refused a value the schemas let through",
  );
  if (code === "23505")
    return new ApiError("ConflictError", "Something with the same identity already exists.");
  if (code === "23503") {
    return new ApiError("ValidationError", "The request refers to something that does not exist.");
  }
  const message = code.startsWith("54")
    ? "A value in the request is too large to be stored."
    : "A value in the request is malformed or out of range for what it is stored as.";
  return new ApiError("ValidationError", message);
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known =
    error instanceof ApiError ? error : (fromFastify(error, request) ?? fromDatabase(error, request));
  if (known) return reply.status(known.status).send(known.toJSON());
  // Syntax errors from JSON.parse surface without a Fastify code.
  if (error instanceof SyntaxError) {
    return reply
      .status(400)
      .send(new ApiError("ValidationError", "The request body is not valid JSON.").toJSON());
  }
  request.log.error({ err: error }, "request failed");
  return reply
    .status(500)
    .send(new ApiError("InternalError", "Something went wrong on the server.").toJSON());
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply
    .status(404)
    .send(new ApiError("NotFoundError", `No route for ${request.method} ${request.url}`).toJSON());
}
