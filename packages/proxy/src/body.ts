import type { FastifyRequest } from "fastify";
import { RequestError } from "./errors.js";

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * The only body parser: JSON, also when the content type is missing (as the reference
 * proxy assumes); a body of any other type is refused with 415. An empty body is no body.
 */
export function parseJsonBody(
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
): void {
  const type = request.headers["content-type"];
  if (body === "") {
    done(null, undefined);
  } else if (type !== undefined && !JSON_MEDIA_TYPE.test(type)) {
    done(new RequestError("ContentTypeerror", `Unsupported media type ${type}`));
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      done(new RequestError("ValidationError", (error as Error).message));
      return;
    }
    done(null, parsed);
  }
}
