import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
}

/** OpenAPI's path for a Fastify route: `/a/:b` is `/a/{b}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/**
 * Every object in the schema refuses properties it does not list, unless it says otherwise:
 * a field a handler returns and the schema forgets would be dropped on serialisation,
 * silently, so a test must see it.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== "object") return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = strict(value);
  if (copy.type === "object" && copy.properties && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

/**
 * Checks every response the app sends against the response schema its OpenAPI document
 * gives for that route and status. What does not match is collected, for the test server
 * to fail on when it closes.
 */
export function responseCheck(violations: string[]) {
  return fp(async (app: FastifyInstance) => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validators = new Map<string, ValidateFunction | null>();
    let document: OpenApi | undefined;

    function validatorFor(request: FastifyRequest, status: number): ValidateFunction | null {
      const url = request.routeOptions.url;
      if (url === undefined || url.startsWith("/docs")) return null;
      const key = `${request.method} ${url} ${status}`;
      if (!validators.has(key)) {
        document ??= app.swagger() as unknown as OpenApi;
        const operation = document.paths[openApiPath(url)]?.[request.method.toLowerCase()];
        const response = operation?.responses?.[String(status)];
        const schema = response?.content?.["application/json"]?.schema;
        // A route that declares no responses at all is the coverage test's to report.
        const declared = Object.keys(request.routeOptions.schema?.response ?? {});
        if (status < 400 && declared.length > 0 && !declared.includes(String(status))) {
          violations.push(`${key}: no response schema for this status`);
        }
        validators.set(key, schema ? ajv.compile(strict(schema) as object) : null);
      }
      return validators.get(key) ?? null;
    }

    function check(request: FastifyRequest, reply: FastifyReply, body: unknown): void {
      const validate = validatorFor(request, reply.statusCode);
      if (validate && !validate(body)) {
        const problems = ajv.errorsText(validate.errors, { dataVar: "body" });
        violations.push(`${request.method} ${request.routeOptions.url} ${reply.statusCode}: ${problems}`);
      }
    }

    // Objects are checked before serialisation, so fields the schema would drop are seen;
    // text the handler serialised itself (the SDK documents) is checked as sent.
    const checked = new WeakSet<FastifyRequest>();
    app.addHook("preSerialization", async (request, reply, payload) => {
      checked.add(request);
      check(request, reply, payload);
      return payload;
    });
    app.addHook("onSend", async (request, reply, payload) => {
      // Compressed documents were checked when first sent plain.
      const json =
        String(reply.getHeader("content-type") ?? "").includes("json") &&
        !reply.getHeader("content-encoding");
      if (checked.has(request) || !json || (typeof payload !== "string" && !Buffer.isBuffer(payload))) {
        return payload;
      }
      const text = payload.toString();
      if (text !== "") check(request, reply, JSON.parse(text));
      return payload;
    });
  });
}
