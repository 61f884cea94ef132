import { createRequire } from "node:module";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { RouteOptions } from "fastify";
import type { App } from "./app-type.js";
import { ERROR_MEANINGS, ErrorBody, errorStatuses } from "./error-responses.js";
import { OPERATION_IDS } from "./operation-ids.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

// Signalbox's mark (the UI's favicon) beside its name, white on the page's dark top bar, in
// place of the stock page's logo and favicon, which are another project's.
const MARK =
  '<rect width="32" height="32" rx="7" fill="#1c7ed6"/><circle cx="11" cy="16" r="5" fill="#fff"/>' +
  '<rect x="18" y="11" width="8" height="10" rx="2" fill="#a5d8ff"/>';
const svg = (width: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} 32"><title>Signalbox</title>${body}</svg>`;
const LOGO = svg(
  150,
  `${MARK}<text x="42" y="23" fill="#fff" font-family="sans-serif" font-size="20" font-weight="700">Signalbox</text>`,
);

/** The API documentation is public, as the reference's is, and documents the admin token scheme. */
export function markDocumentationPublic(route: RouteOptions): void {
  if (route.url === "/docs" || route.url.startsWith("/docs/")) {
    route.config = { ...route.config, auth: "public" };
  }
}

interface Answer {
  description: string;
  content?: unknown;
}
interface Operation {
  operationId?: string;
  summary?: string;
  responses: Record<string, Answer>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

const BODILESS: Record<string, string> = {
  201: "created",
  202: "accepted",
  302: "redirects to the Location header's address",
};

/**
 * The documented routes by "METHOD url", as the document's operations are found again.
 * A route without an operationId is a start-up failure, as one without a permission is.
 */
function documentedRoutes(app: App): Map<string, RouteOptions> {
  const routes = new Map<string, RouteOptions>();
  app.addHook("onRoute", (route) => {
    if ((route.schema as { hide?: boolean } | undefined)?.hide) return;
    for (const method of [route.method].flat()) {
      if (method === "HEAD" || method === "OPTIONS") continue;
      const key = `${method} ${route.url}`;
      if (OPERATION_IDS[key] === undefined) {
        throw new Error(`${key} has no operationId: give it one in http/operation-ids.ts`);
      }
      routes.set(key, route);
    }
  });
  return routes;
}

/**
 * What the routes' schemas leave out and client generators need: a name for each
 * operation, the refusals it can give (all with the one error body), and words for the
 * answers in place of the generator's "Default Response".
 */
function completeOperations(document: Document, routes: Map<string, RouteOptions>): void {
  document.components.schemas.ErrorBody = ErrorBody;
  const error = { $ref: "#/components/schemas/ErrorBody" };
  for (const [path, item] of Object.entries(document.paths)) {
    const url = path.replace(/\{(\w+)\}/g, ":$1");
    for (const [method, shared] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${url}`;
      const route = routes.get(key);
      if (!route) continue;
      // A route of several methods has one operation object for all of them; each needs its own name.
      const operation: Operation = { ...shared, responses: { ...shared.responses } };
      item[method] = operation;
      operation.operationId = OPERATION_IDS[key];
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response.description !== "Default Response") continue;
        response.description = response.content
          ? `${operation.summary}.`
          : `${operation.summary} — ${BODILESS[status] ?? "done"}, with no body.`;
      }
      for (const status of errorStatuses(route, method.toUpperCase())) {
        operation.responses[status] ??= {
          description: ERROR_MEANINGS[status],
          content: { "application/json": { schema: error } },
        };
      }
    }
  }
}

/**
 * The OpenAPI 3 document, generated from the routes' own schemas, at /docs/openapi.json,
 * and an interactive page over it at /docs. Registered before any route so that every
 * route is seen.
 */
export async function registerOpenApi(app: App): Promise<void> {
  const routes = documentedRoutes(app);
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Signalbox flag service",
        version,
        description:
          "The admin, SDK and frontend APIs of the Signalbox flag service (Unleash wire protocol).",
      },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "Authorization" },
        },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (object) => {
      // Always an OpenAPI 3 document here (`openapi` above), never a Swagger 2 one.
      const { openapiObject } = object as Extract<typeof object, { openapiObject: unknown }>;
      completeOperations(openapiObject as unknown as Document, routes);
      return openapiObject;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    logo: { type: "image/svg+xml", content: LOGO },
    theme: {
      title: "Signalbox API reference",
      favicon: [
        { filename: "favicon.svg", rel: "icon", type: "image/svg+xml", sizes: "any", content: svg(32, MARK) },
      ],
    },
  });
  app.get("/docs/openapi.json", { schema: { hide: true } }, () => app.swagger());
}
