import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
  components: object;
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

// Compiling is most of what checking costs, and every test server has the same document: the
// files a worker runs share one compiled validator per schema, and the document's components
// are added once, under an id its references are rewritten to.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
const validatorsBySource = new Map<string, ValidateFunction>();
const componentIds = new Map<string, string>();

/** The schema with its references (#/components/schemas/…) pointing into the components added under `id`. */
function pointedAt(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => pointedAt(item, id));
  if (schema === null || typeof schema !== "object") return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === "$ref" && typeof value === "string" && value.startsWith("#/")
        ? `${id}${value}`
        : pointedAt(value, id);
  }
  return copy;
}

function compiled(schema: unknown, components: string): ValidateFunction {
  let id = componentIds.get(components);
  if (!id) {
    id = `openapi-components-${componentIds.size}`;
    ajv.addSchema({ $id: id, components: pointedAt(JSON.parse(components), id) });
    componentIds.set(components, id);
  }
  const source = `${id} ${JSON.stringify(schema)}`;
  let validate = validatorsBySource.get(source);
  if (!validate) {
    validate = ajv.compile(pointedAt(schema, id) as object);
    validatorsBySource.set(source, validate);
  }
  return validate;
}

/**
 * Checks every response the app sends against the response schema its OpenAPI document
 * gives for that route and status. What does not match is collected, for the test server
 * to fail on when it closes.
 */
export function responseCheck(violations: string[]) {
  return fp(async (app: FastifyInstance) => {
    const validators = new Map<string, ValidateFunction | null>();
    let document: OpenApi | undefined;
    let components: string | undefined;

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
        components ??= JSON.stringify(strict(document.components));
        validators.set(key, schema ? compiled(strict(schema), components) : null);
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
