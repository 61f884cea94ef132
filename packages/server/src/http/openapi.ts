import { createRequire } from "node:module";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { RouteOptions } from "fastify";
import type { App } from "./app-type.js";

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
