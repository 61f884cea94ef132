import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiPath } from "./support/response-check.js";
import { startTestServer, type TestServer } from "./support/server.js";

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
  requestBody?: unknown;
  parameters?: { in: string; name: string }[];
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

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
