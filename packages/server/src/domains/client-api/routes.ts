import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  ApiError,
  ClientFeaturesDeltaSchema,
  ClientFeaturesSchema,
  FeatureSchema,
  invalidField,
  notFound,
} from "@signalbox/protocol";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { tokenCaller } from "../../http/auth.js";
import { FeatureName, LastEventId, NotModified, ScopeQuery } from "./schemas.js";
import { scopeFor } from "./scope.js";
import type { ClientFeaturesService, Document } from "./service.js";
import type { ClientStreams } from "./streams.js";

const tags = ["Client"];
const config = { auth: "client" as const };

/** The first client specification whose SDKs resolve segments themselves, as the spec says. */
const SEGMENTS_SINCE = [4, 2, 2];

/**
 * SDKs that implement client specification 4.2.2 or newer resolve segments themselves;
 * older ones get each segment's constraints copied into the strategies that use it.
 */
function inlineSegments(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(header));
  if (!match)
    throw invalidField("unleash-client-spec", "the Unleash-Client-Spec header must be a semantic version");
  const version = match.slice(1, 4).map(Number);
  const differing = version.findIndex((part, index) => part !== SEGMENTS_SINCE[index]);
  return differing !== -1 && version[differing]! < SEGMENTS_SINCE[differing]!;
}

/** Whether a client takes gzip: named (or `*`) without `q=0`, as SDK HTTP clients send it. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((entry) => {
    const [coding, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    const refused = parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
    return (coding === "gzip" || coding === "*") && !refused;
  });
}

/** Small listings are not worth compressing. */
const GZIP_THRESHOLD = 1024;

const revisionOf = (header: string | undefined) => {
  const match = header ? /(\d+)/.exec(header) : null;
  return match ? Number(match[1]) : undefined;
};

/** The listing, or 304 to its ETag; gzipped for a client that takes it. */
function answer(request: FastifyRequest, reply: FastifyReply, document: Document): void | Promise<void> {
  reply.header("etag", document.etag).header("cache-control", "no-cache").header("vary", "accept-encoding");
  if (request.headers["if-none-match"] === document.etag) {
    reply.status(304).send();
    return;
  }
  reply.type("application/json; charset=utf-8");
  // The document's bytes, encoded once for every SDK that asks (the schema says what they hold).
  if (document.body.length >= GZIP_THRESHOLD && acceptsGzip(request.headers["accept-encoding"])) {
    reply.header("content-encoding", "gzip");
    const gzipped = document.gzipped();
    if (gzipped instanceof Promise) return gzipped.then((bytes) => void reply.send(bytes));
    reply.send(gzipped);
    return;
  }
  reply.send(document.body);
}

/** What server-side SDKs poll, under `/api/client`. */
export const clientApiRoutes: FastifyPluginAsyncTypebox<{
  features: ClientFeaturesService;
  streams: ClientStreams;
}> = async (app, { features, streams }) => {
  app.get(
    "/api/client/features",
    {
      config,
      schema: {
        tags,
        summary: "Every flag the token may see, with segments, as SDKs poll it",
        description: "Encoded once per change and query; answers 304 to the ETag of the same document.",
        querystring: ScopeQuery,
        response: { 200: ClientFeaturesSchema, 304: NotModified },
      },
    },
    // Not async: a poll whose listing is ready is answered without a promise, and most are.
    (request, reply) => {
      const scope = scopeFor(tokenCaller(request), request.query);
      const document = features.document(scope, inlineSegments(request.headers["unleash-client-spec"]));
      if (document instanceof Promise) return document.then((ready) => answer(request, reply, ready));
      answer(request, reply, document);
    },
  );

  app.get(
    "/api/client/features/:featureName",
    {
      config,
      schema: {
        tags,
        summary: "One flag, as in the listing",
        params: FeatureName,
        querystring: ScopeQuery,
        response: { 200: FeatureSchema },
      },
    },
    async (request) => {
      const scope = scopeFor(tokenCaller(request), request.query);
      const inline = inlineSegments(request.headers["unleash-client-spec"]);
      const feature = await features.feature(scope, request.params.featureName, inline);
      if (!feature) throw notFound(`Could not find feature flag ${request.params.featureName}`);
      return feature;
    },
  );

  app.get(
    "/api/client/delta",
    {
      config,
      schema: {
        tags,
        summary: "What changed since the revision in If-None-Match, or everything",
        querystring: ScopeQuery,
        response: { 200: ClientFeaturesDeltaSchema, 304: NotModified },
      },
    },
    async (request, reply) => {
      const scope = scopeFor(tokenCaller(request), request.query);
      const since = revisionOf(request.headers["if-none-match"]);
      const delta = await features.delta(scope, since);
      if (delta.events.length === 0) {
        reply.status(304).header("etag", `"${since}"`);
        return;
      }
      return reply.header("etag", `"${delta.revision}"`).send({ events: delta.events });
    },
  );

  app.get(
    "/api/client/streaming",
    {
      config,
      schema: {
        tags,
        summary: "The delta events, as a server-sent event stream",
        description:
          "`unleash-connected` first: a hydration, or the changes after `Last-Event-ID` while this instance remembers them; then `unleash-updated` after every change the token sees, and a keep-alive comment every 30 s. The stream ends when its token is revoked or expires; past the instance's limit of streams the answer is 429, and SDKs poll instead.",
        querystring: ScopeQuery,
        headers: LastEventId,
        response: {
          200: {
            description:
              "Server-sent events: `event:`, `id:` and `data:` lines, the data a ClientFeaturesDelta.",
            content: { "text/event-stream": { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      if (streams.full) {
        throw new ApiError("RateLimitError", "This instance holds as many streams as it may: poll instead.");
      }
      const header = request.headers.authorization!;
      const secret = header.startsWith("Bearer ") ? header.slice(7) : header;
      const lastEventId = revisionOf(request.headers["last-event-id"]);
      const opening = await streams.prepare(tokenCaller(request), secret, request.query, lastEventId);
      // From here the response is the stream's, written as events happen.
      reply.hijack();
      streams.start(reply.raw, opening);
    },
  );
};
