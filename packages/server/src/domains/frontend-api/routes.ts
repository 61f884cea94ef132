import cors from "@fastify/cors";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  ApiError,
  FrontendQuerySchema,
  FrontendRequestSchema,
  FrontendTogglesSchema,
  frontendApiContext,
} from "@signalbox/protocol";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from "fastify";
import { tokenCaller } from "../../http/auth.js";
import { NotImplemented } from "./schemas.js";
import type { FrontendService } from "./service.js";

export interface FrontendRoutesOptions {
  frontend: FrontendService;
  /** Origins browsers may call from; `*` for any. */
  origins: string[];
  /** Routes that share the frontend API's CORS rules (browser SDKs' usage reports). */
  within?: FastifyPluginAsync;
}

/**
 * Sends the serialised toggles (the schema says what they hold). Not async: an answer from a
 * ready snapshot is sent without a promise made.
 */
function answer(reply: FastifyReply, body: Buffer | Promise<Buffer>): Promise<void> | undefined {
  reply.header("cache-control", "no-cache").type("application/json; charset=utf-8");
  if (body instanceof Promise) return body.then((bytes) => void reply.send(bytes));
  reply.send(body);
  return undefined;
}

/**
 * CORS for browser SDKs, on the routes of the plugin that calls it and no others; `paths` is
 * where its preflight answers (@fastify/cors declares that route as `*`, meant to sit under
 * a prefix these plugins have none of: left so, it would answer OPTIONS on every URL).
 */
export async function browserCors(app: FastifyInstance, origins: string[], paths: string): Promise<void> {
  app.addHook("onRoute", (route) => {
    if (route.method === "OPTIONS" && route.url === "*") {
      route.url = paths;
      route.path = route.url;
    }
  });
  await app.register(cors, {
    origin: origins.includes("*") ? "*" : origins,
    methods: ["GET", "POST"],
    exposedHeaders: ["ETag"],
    maxAge: 172800,
  });
}

const tags = ["Frontend"];
const config = { auth: "frontend" as const };

/**
 * What browser SDKs call with a frontend token. CORS belongs to the browser-facing API only:
 * registered inside this plugin, its hooks see this plugin's routes and no others.
 */
export const frontendRoutes: FastifyPluginAsyncTypebox<FrontendRoutesOptions> = async (
  app,
  { frontend, origins, within },
) => {
  await browserCors(app, origins, "/api/frontend*");

  app.get(
    "/api/frontend",
    {
      config,
      schema: {
        tags,
        summary: "The flags enabled for the context in the query string",
        querystring: FrontendQuerySchema,
        response: { 200: FrontendTogglesSchema },
      },
    },
    (request, reply) =>
      answer(reply, frontend.evaluate(tokenCaller(request), frontendApiContext(request.query, request.ip))),
  );

  app.post(
    "/api/frontend",
    {
      config,
      schema: {
        tags,
        summary: "The flags enabled for the context in the body",
        body: FrontendRequestSchema,
        response: { 200: FrontendTogglesSchema },
      },
    },
    (request, reply) =>
      answer(
        reply,
        frontend.evaluate(tokenCaller(request), frontendApiContext(request.body.context ?? {}, request.ip)),
      ),
  );

  if (within) await app.register(within);

  for (const path of ["/api/frontend/client/features", "/api/frontend/health"]) {
    app.get(
      path,
      {
        config,
        schema: { tags, summary: "Not served by the frontend API", response: { 405: NotImplemented } },
      },
      async () => {
        throw new ApiError("NotImplementedError", "The frontend API does not support this endpoint.");
      },
    );
  }
};
