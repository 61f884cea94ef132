import { createRequire } from "node:module";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { RouteOptions } from "fastify";
import type { App } from "./app-type.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** The API documentation is public, as the reference's is, and documents the admin token scheme. */
export function markDocumentationPublic(route: RouteOptions): void {
  if (route.url === "/docs" || route.url.startsWith("/docs/")) {
    route.config = { ...route.config, auth: "public" };
  }
}

/**
 * The OpenAPI 3 document, generated from the routes' own schemas, at /docs/openapi.json,
 * and an interactive page over it at /docs. Registered before any route so that every
 * route is seen.
 */
export async function registerOpenApi(app: App): Promise<void> {
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
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/docs/openapi.json", { schema: { hide: true } }, () => app.swagger());
}
