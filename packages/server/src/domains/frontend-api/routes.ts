import cors from "@fastify/cors";
import { ApiError } from "@signalbox/protocol";
import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { tokenCaller } from "../../http/auth.js";
import { usageRoutes } from "../metrics/routes.js";
import type { MetricsService } from "../metrics/service.js";
import { contextFrom, type FrontendService } from "./service.js";

const Body = Type.Object({
  context: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export function frontendRoutes(
  app: App,
  frontend: FrontendService,
  metrics: MetricsService,
  origins: string[],
): void {
  // CORS belongs to the browser-facing API only: a context of its own under its prefix, so
  // the plugin's catch-all preflight route answers for `/api/frontend…` and nothing else.
  app.register(
    async (scope: App) => {
      await scope.register(cors, {
        origin: origins.includes("*") ? "*" : origins,
        methods: ["GET", "POST"],
        exposedHeaders: ["ETag"],
        maxAge: 172800,
      });
      const config = { auth: "frontend" as const };

      scope.get("", { config }, async (request, reply) => {
        const context = contextFrom(request.query as Record<string, unknown>, request.ip);
        reply.header("cache-control", "no-cache");
        return { toggles: await frontend.evaluate(tokenCaller(request), context) };
      });

      scope.post("", { config, schema: { body: Body } }, async (request, reply) => {
        const context = contextFrom(request.body.context ?? {}, request.ip);
        reply.header("cache-control", "no-cache");
        return { toggles: await frontend.evaluate(tokenCaller(request), context) };
      });

      usageRoutes(scope, metrics, "/client", "frontend");

      for (const path of ["/client/features", "/health"]) {
        scope.get(path, { config }, async () => {
          throw new ApiError("NotImplementedError", "The frontend API does not support this endpoint.");
        });
      }
    },
    { prefix: "/api/frontend" },
  );
}
