import { createRequire } from "node:module";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_EXCEPTIONS } from "../src/http/error-responses.js";
import { OPERATION_IDS } from "../src/http/operation-ids.js";
import { openApiPath } from "./support/response-check.js";
import {
  ADMIN_TOKEN,
  CLIENT_TOKEN,
  FRONTEND_TOKEN,
  type RequestOptions,
  startTestServer,
  type TestServer,
} from "./support/server.js";

interface Operation {
  operationId?: string;
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }
  >;
  requestBody?: unknown;
  parameters?: { in: string; name: string }[];
}
type Paths = Record<string, Record<string, Operation>>;

// Small, so that a body over the limit (413) is cheap to send to every route that takes one.
const BODY_LIMIT = 1024;
const ERROR_BODY = "#/components/schemas/ErrorBody";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("pglite", undefined, { bodyLimit: BODY_LIMIT });
});
afterAll(() => server.close());

/** Every documented route and method, with its operation in the document. */
async function operations() {
  const { body } = await server.request("/docs/openapi.json");
  const paths = body.paths as Paths;
  return server.routes
    .filter((route) => !route.url.startsWith("/docs"))
    .flatMap((route) =>
      [route.method]
        .flat()
        .filter((method) => method !== "HEAD" && method !== "OPTIONS")
        .map((method) => ({
          route,
          method,
          name: `${method} ${route.url}`,
          operation: paths[openApiPath(route.url)]?.[method.toLowerCase()],
        })),
    );
}

const schemaOf = (route: RouteOptions) => (route.schema ?? {}) as Record<string, unknown>;
const readsBody = (route: RouteOptions, method: string) =>
  schemaOf(route).body !== undefined && method !== "GET";

/**
 * The refusals a route must declare, from what it is: what it validates (400), whether it
 * needs a token (401) and checks it or the caller's permission (403; a public route refuses
 * changes sent from another site's pages), whether its path names something (404) and
 * whether it reads a body (413, 415); then the exceptions the code adds (409, 429…).
 */
function expectedRefusals(route: RouteOptions, method: string): number[] {
  const schema = schemaOf(route);
  const open = route.config?.auth === "public";
  const exception = ERROR_EXCEPTIONS[`${method} ${route.url}`];
  return [
    ...(readsBody(route, method) || schema.params || schema.querystring ? [400] : []),
    ...(open ? [] : [401]),
    ...(open && method === "GET" ? [] : [403]),
    ...(schema.params && !exception?.without?.includes(404) ? [404] : []),
    ...(readsBody(route, method) ? [413, 415] : []),
    ...(exception?.with ?? []),
  ];
}

/** A path naming nothing that exists: an unknown name, or an id no row has. */
function unknownPath(route: RouteOptions): string {
  const params = (schemaOf(route).params as { properties?: Record<string, { type?: string }> }) ?? {};
  return route.url.replace(/:(\w+)/g, (_, name: string) =>
    params.properties?.[name]?.type === "integer" ? "2147483000" : "no-such-thing",
  );
}

const TOKENS: Record<string, { own: string | null; other: string | null }> = {
  admin: { own: ADMIN_TOKEN, other: FRONTEND_TOKEN },
  client: { own: CLIENT_TOKEN, other: FRONTEND_TOKEN },
  frontend: { own: FRONTEND_TOKEN, other: CLIENT_TOKEN },
  public: { own: null, other: null },
};

/** A request as the test server's, but a redirect is the answer rather than something to follow. */
async function send(path: string, { method, token, body, headers }: RequestOptions) {
  const json = body !== undefined && typeof body !== "string";
  const response = await fetch(`${server.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(json ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: json ? JSON.stringify(body) : (body as string | undefined),
  });
  // A stream admitted is no refusal, and never ends by itself.
  if (response.headers.get("content-type") === "text/event-stream") {
    await response.body?.cancel();
    return { status: response.status, name: undefined };
  }
  const text = await response.text();
  return { status: response.status, name: text.startsWith("{") ? JSON.parse(text).name : undefined };
}

/** Requests every route should refuse, one way or another, and none of them can succeed in changing anything that exists. */
function refusable(route: RouteOptions, method: string): RequestOptions[] {
  const tokens = TOKENS[route.config?.auth ?? "admin"]!;
  const requests: RequestOptions[] = [
    { method, token: null },
    { method, token: tokens.other },
    { method, token: tokens.own, body: readsBody(route, method) ? {} : undefined },
  ];
  if (readsBody(route, method)) {
    requests.push(
      { method, token: tokens.own, body: "{", headers: { "content-type": "application/json" } },
      { method, token: tokens.own, body: "text", headers: { "content-type": "text/plain" } },
      { method, token: tokens.own, body: { padding: "x".repeat(BODY_LIMIT) } },
    );
  }
  return requests;
}

describe("the OpenAPI document", () => {
  it("is served without credentials, with an interactive page beside it", async () => {
    const document = await server.request("/docs/openapi.json", { token: null });
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(document.body.components.securitySchemes.apiKey).toEqual({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
    const page = await server.request("/docs/", { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  it("is Signalbox's page: its name, its mark, and none of the stock page's logos", async () => {
    const page = await server.request<string>("/docs/", { token: null });
    expect(page.body).toContain("<title>Signalbox API reference</title>");
    expect(page.body).not.toMatch(/favicon-(16x16|32x32)\.png/);
    const favicon = await server.request<string>("/docs/static/theme/favicon.svg", { token: null });
    expect(favicon.headers.get("content-type")).toBe("image/svg+xml");
    expect(favicon.body).toContain("<title>Signalbox</title>");
    // The page puts its logo into the top bar from its start-up script, as a data URL.
    const script = await server.request<string>("/docs/static/swagger-initializer.js", { token: null });
    const logo = /data:image\/svg\+xml;base64,([\w+/=]+)/.exec(script.body)?.[1] ?? "";
    expect(Buffer.from(logo, "base64").toString()).toContain(">Signalbox</text>");
  });

  it("lists every route with a response schema for each success status it declares", async () => {
    const { body } = await server.request("/docs/openapi.json");
    const paths = body.paths as Record<string, Record<string, Operation>>;
    const missing: string[] = [];
    const routes = server.routes.filter((route) => !route.url.startsWith("/docs"));
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) {
      for (const method of [route.method].flat()) {
        if (method === "HEAD" || method === "OPTIONS") continue;
        const operation = paths[openApiPath(route.url)]?.[method.toLowerCase()];
        const name = `${method} ${route.url}`;
        if (!operation) {
          missing.push(`${name}: not in the document`);
          continue;
        }
        const declared = Object.keys((route.schema?.response as object | undefined) ?? {}).filter((status) =>
          /^[23]/.test(status),
        );
        // Routes kept only to refuse (the frontend API's 405s, as the reference's) declare that.
        const responses = Object.keys((route.schema?.response as object | undefined) ?? {});
        if (responses.length === 0) missing.push(`${name}: declares no response`);
        const schemas = route.schema?.response as Record<string, { type?: string }>;
        for (const status of declared) {
          const documented = operation.responses?.[status];
          // A body's schema is in the document; a bodiless answer (Type.Null) is documented as such.
          if (!documented) missing.push(`${name}: ${status} is not in the document`);
          else if (schemas[status]?.type !== "null" && !documented.content) {
            missing.push(`${name}: ${status} has no schema in the document`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the OpenAPI document, for client generators", () => {
  it("names every operation, each with a name of its own", async () => {
    const all = await operations();
    expect(all.length).toBeGreaterThan(200);
    const unnamed = all.filter(({ operation }) => !operation?.operationId).map(({ name }) => name);
    expect(unnamed).toEqual([]);
    const names = all.map(({ operation }) => operation?.operationId);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    // The tables name only routes that exist: a route moved or removed takes its entries along.
    const routes = new Set(all.map(({ name }) => name));
    expect(Object.keys(OPERATION_IDS).filter((key) => !routes.has(key))).toEqual([]);
    expect(Object.keys(ERROR_EXCEPTIONS).filter((key) => !routes.has(key))).toEqual([]);
  });

  it("gives openapi-typescript, which the UI's client is generated with, a name for every operation", async () => {
    // The UI's dependency, found from the UI's package as its generator script finds it.
    const generator = createRequire(new URL("../../ui/package.json", import.meta.url)).resolve(
      "openapi-typescript",
    );
    const { default: openapiTS, astToString } = (await import(generator)) as {
      default: (document: unknown) => Promise<unknown>;
      astToString: (ast: unknown) => string;
    };
    const { body } = await server.request("/docs/openapi.json");
    const source = astToString(await openapiTS(body));
    const block = source.slice(source.indexOf("export interface operations {"));
    const generated = [...block.matchAll(/^ {4}"?([\w-]+)"?: \{$/gm)].map((match) => match[1]);
    const names = (await operations()).map(({ operation }) => operation?.operationId);
    expect(generated.sort()).toEqual(names.sort());
  });

  it("declares the refusals each route can give, all with the one error body", async () => {
    const wrong: string[] = [];
    for (const { route, method, name, operation } of await operations()) {
      const responses = operation?.responses ?? {};
      for (const status of expectedRefusals(route, method)) {
        if (!responses[status]) wrong.push(`${name}: ${status} is not declared`);
      }
      for (const [status, response] of Object.entries(responses)) {
        const schema = response.content?.["application/json"]?.schema;
        // The frontend API's 405s are the reference's own body, and OFREP's 400s and 404s
        // OpenFeature's protocol's, declared by their routes.
        const ownBody =
          status === "405" || (route.url.startsWith("/ofrep/") && ["400", "404"].includes(status));
        if (Number(status) >= 400 && !ownBody && schema?.$ref !== ERROR_BODY) {
          wrong.push(`${name}: ${status} does not answer with the error body`);
        }
        if (response.description === "Default Response") wrong.push(`${name}: ${status} is not described`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses only with statuses the document declares, with bodies that match it", async () => {
    const undeclared: string[] = [];
    for (const { route, method, name, operation } of await operations()) {
      for (const request of refusable(route, method)) {
        const reply = await send(unknownPath(route), request);
        if (reply.status >= 400 && !operation?.responses?.[reply.status]) {
          undeclared.push(`${name}: ${reply.status} ${reply.name ?? ""} is not declared`);
        }
      }
    }
    expect(undeclared).toEqual([]);
    // The response check compares every body with the document, error bodies included.
    expect(server.violations).toEqual([]);
  });
});
