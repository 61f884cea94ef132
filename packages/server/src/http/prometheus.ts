import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Telemetry } from "../telemetry.js";
import type { App } from "./app-type.js";

/**
 * The reference's Prometheus endpoint, open as the reference's is: operators block
 * /internal-backstage at the network edge. Every request's duration is recorded by route
 * pattern, so flag names in URLs do not multiply the series.
 */
export function prometheusRoutes(app: App, telemetry: Telemetry): void {
  // One child per route, method and status, found by a string key: prom-client would
  // otherwise hash a labels object on every request, the SDK endpoints' included.
  const series = new Map<string, { observe(value: number): void }>();
  const observe = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.routeOptions.url!;
    const key = `${reply.statusCode} ${request.method} ${path}`;
    let child = series.get(key);
    if (!child) {
      child = telemetry.requestDuration.labels({
        path,
        method: request.method,
        status: String(reply.statusCode),
      });
      series.set(key, child);
    }
    child.observe(reply.elapsedTime);
  };
  // A hook with a callback: an async one would make a promise per request for nothing to wait on.
  app.addHook("onResponse", (request, reply, done) => {
    if (!request.is404) observe(request, reply);
    done();
  });

  app.get(
    "/internal-backstage/prometheus",
    {
      config: { auth: "public" },
      schema: {
        tags: ["Operations"],
        summary: "Metrics in the Prometheus text format",
        response: {
          200: {
            description: "Prometheus text exposition",
            content: { "text/plain": { schema: Type.String() } },
          },
        },
      },
    },
    async (_, reply) => {
      const text = await telemetry.text();
      return reply.type(telemetry.registry.contentType).send(text);
    },
  );
}
