import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { tokenCaller } from "../../http/auth.js";
import type { MetricsService } from "./service.js";

const Registration = Type.Object({
  appName: Type.String({ minLength: 1 }),
  instanceId: Type.Optional(Type.String()),
  sdkVersion: Type.Optional(Type.String()),
  strategies: Type.Optional(Type.Array(Type.String())),
  // Epoch seconds within what a Date can hold.
  started: Type.Optional(Type.Union([Type.String(), Type.Number({ minimum: 0, maximum: 8.64e12 })])),
  interval: Type.Optional(Type.Integer({ minimum: 0 })),
});

const Counts = Type.Object({
  yes: Type.Optional(Type.Integer({ minimum: 0 })),
  no: Type.Optional(Type.Integer({ minimum: 0 })),
  variants: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
});

const Report = Type.Object({
  appName: Type.String({ minLength: 1 }),
  instanceId: Type.Optional(Type.String()),
  sdkVersion: Type.Optional(Type.String()),
  bucket: Type.Optional(
    Type.Union([
      Type.Object({
        start: Type.Optional(Type.String()),
        stop: Type.Optional(Type.String()),
        toggles: Type.Optional(Type.Record(Type.String(), Counts)),
      }),
      Type.Null(),
    ]),
  ),
});

const ApplicationsQuery = Type.Object({
  query: Type.Optional(Type.String()),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sortBy: Type.Optional(
    Type.Union([Type.Literal("appName"), Type.Literal("createdAt"), Type.Literal("updatedAt")]),
  ),
  sortOrder: Type.Optional(Type.Union([Type.Literal("asc"), Type.Literal("desc")])),
});

/**
 * Where SDKs register and report usage: under `/api/client` for server SDKs and, inside the
 * frontend API's CORS scope, under `/api/frontend/client` for browser SDKs.
 */
export function usageRoutes(
  app: App,
  metrics: MetricsService,
  prefix: string,
  auth: "client" | "frontend",
): void {
  // The reference answers server SDKs 202 and browser SDKs 200.
  const accepted = auth === "client" ? 202 : 200;
  app.post(
    `${prefix}/register`,
    { config: { auth }, schema: { body: Registration } },
    async (request, reply) => {
      await metrics.register(tokenCaller(request), request.body, request.ip);
      return reply.status(accepted).send();
    },
  );
  app.post(`${prefix}/metrics`, { config: { auth }, schema: { body: Report } }, async (request, reply) => {
    await metrics.report(tokenCaller(request), request.body, request.ip);
    return reply.status(accepted).send();
  });
}

export function metricsRoutes(app: App, metrics: MetricsService): void {
  usageRoutes(app, metrics, "/api/client", "client");

  app.get(
    "/api/admin/metrics/applications",
    { schema: { querystring: ApplicationsQuery } },
    async (request) => {
      const { query, offset = 0, limit = 1000, sortBy = "appName", sortOrder = "asc" } = request.query;
      return metrics.applications({ query, offset, limit, sortBy, sortOrder });
    },
  );
}
