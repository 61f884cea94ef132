import type { RouteOptions } from "fastify";
import type { Access } from "./guard.js";

declare module "fastify" {
  interface FastifySchema {
    summary?: string;
    description?: string;
    /** Left out of the OpenAPI document. */
    hide?: boolean;
  }
}

type JsonSchema = {
  [keyword: string]: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

interface ResponseSchema extends JsonSchema {
  description?: string;
  content?: Record<string, { schema: JsonSchema }>;
}

interface RouteSchema {
  summary?: string;
  description?: string;
  hide?: boolean;
  querystring?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, ResponseSchema>;
}

interface DocumentedRoute {
  method: string;
  url: string;
  access: Access;
  schema: RouteSchema;
}

export interface OpenApiSettings {
  version: string;
  clientKeysHeaderName: string;
}

const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  public: [],
  client: [{ clientKey: [] }],
  server: [{ serverToken: [] }],
  "client-or-server": [{ clientKey: [] }, { serverToken: [] }],
};

function queryParameters(schema: JsonSchema | undefined) {
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema?.required?.includes(name) ?? false,
    schema: property,
    // Objects are sent as properties[name]=value.
    ...(property.type === "object" ? { style: "deepObject", explode: true } : {}),
  }));
}

function responses(schemas: Record<string, ResponseSchema>) {
  return Object.fromEntries(
    Object.entries(schemas).map(([status, schema]) => [
      status,
      schema.content
        ? { description: schema.description ?? "", content: schema.content }
        : { description: schema.description ?? "", content: { "application/json": { schema } } },
    ]),
  );
}

/**
 * The OpenAPI 3.1 description, generated from the schemas the routes are declared with,
 * so the document cannot drift from what the proxy validates and answers.
 */
export class OpenApiDocument {
  private readonly routes: DocumentedRoute[] = [];

  constructor(private readonly settings: OpenApiSettings) {}

  /** For Fastify's onRoute hook. */
  readonly collect = (route: RouteOptions): void => {
    const schema = (route.schema ?? {}) as RouteSchema;
    for (const method of [route.method].flat()) {
      if (method === "HEAD" || method === "OPTIONS" || schema.hide) continue;
      this.routes.push({ method, url: route.url, access: route.config?.access ?? "public", schema });
    }
  };

  toJSON() {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { method, url, access, schema } of this.routes) {
      paths[url] ??= {};
      paths[url][method.toLowerCase()] = {
        summary: schema.summary,
        description: schema.description,
        parameters: queryParameters(schema.querystring),
        ...(schema.body ? { requestBody: { content: { "application/json": { schema: schema.body } } } } : {}),
        responses: responses(schema.response ?? {}),
        security: SECURITY[access],
      };
    }
    const apiKey = (description: string, name: string) => ({
      type: "apiKey",
      in: "header",
      name,
      description,
    });
    return {
      openapi: "3.1.0",
      info: { title: "Signalbox proxy", version: this.settings.version },
      paths,
      components: {
        securitySchemes: {
          clientKey: apiKey("One of the proxy's client keys.", this.settings.clientKeysHeaderName),
          serverToken: apiKey("A server-side SDK token (expServerSideSdkConfig.tokens).", "authorization"),
        },
      },
    };
  }
}

/** A small page that lists the operations of openapi.json and lets one call them. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Signalbox proxy API</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
details { border: 1px solid #ccc; border-radius: 4px; margin: .5rem 0; padding: .5rem 1rem; }
summary { cursor: pointer; font-family: monospace; }
textarea, input { font-family: monospace; width: 100%; box-sizing: border-box; }
pre { background: #f4f4f4; padding: .5rem; overflow: auto; }
</style>
</head>
<body>
<h1>Signalbox proxy API</h1>
<p><label>Key or token <input id="key" autocomplete="off"></label></p>
<div id="operations"></div>
<script>
const element = (tag, text) => Object.assign(document.createElement(tag), { textContent: text ?? "" });
fetch("openapi.json").then((response) => response.json()).then((doc) => {
  const header = doc.components.securitySchemes.clientKey.name;
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const box = element("details");
      box.append(element("summary", method.toUpperCase() + " " + path + "  " + (operation.summary ?? "")));
      if (operation.description) box.append(element("p", operation.description));
      const query = element("input");
      query.placeholder = "query string, e.g. userId=42&properties[plan]=pro";
      if (operation.parameters.length > 0) box.append(query);
      const body = element("textarea", operation.requestBody ? "{}" : "");
      if (operation.requestBody) box.append(body);
      const send = element("button", "Send");
      const output = element("pre");
      send.onclick = async () => {
        const headers = { [header]: document.getElementById("key").value };
        if (operation.requestBody) headers["content-type"] = "application/json";
        const url = path + (query.value ? "?" + query.value : "");
        const init = { method: method.toUpperCase(), headers, body: operation.requestBody ? body.value : undefined };
        const response = await fetch(url, init);
        output.textContent = response.status + " " + response.statusText + "\\n\\n" + (await response.text());
      };
      box.append(send, output);
      document.getElementById("operations").append(box);
    }
  }
});
</script>
</body>
</html>
`;
