import { invalidField, notFound } from "@signalbox/protocol";
import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { tokenCaller } from "../../http/auth.js";
import { type ScopeQuery, scopeFor } from "./scope.js";
import type { ClientFeaturesService } from "./service.js";

const Query = Type.Object({
  project: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(
    Type.Union([Type.String({ pattern: "^\\w+:.+$" }), Type.Array(Type.String({ pattern: "^\\w+:.+$" }))]),
  ),
  environment: Type.Optional(Type.String()),
});

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

export function clientApiRoutes(app: App, features: ClientFeaturesService): void {
  const config = { auth: "client" as const };

  app.get("/api/client/features", { config, schema: { querystring: Query } }, async (request, reply) => {
    const scope = scopeFor(tokenCaller(request), request.query as ScopeQuery);
    const document = await features.document(scope, inlineSegments(request.headers["unleash-client-spec"]));
    reply.header("etag", document.etag).header("cache-control", "no-cache").header("vary", "accept-encoding");
    if (request.headers["if-none-match"] === document.etag) return reply.status(304).send();
    reply.type("application/json; charset=utf-8");
    if (document.body.length >= GZIP_THRESHOLD && acceptsGzip(request.headers["accept-encoding"])) {
      return reply.header("content-encoding", "gzip").send(await document.gzipped());
    }
    return reply.send(document.body);
  });

  app.get(
    "/api/client/features/:featureName",
    { config, schema: { params: Type.Object({ featureName: Type.String() }), querystring: Query } },
    async (request) => {
      const scope = scopeFor(tokenCaller(request), request.query as ScopeQuery);
      const inline = inlineSegments(request.headers["unleash-client-spec"]);
      const feature = await features.feature(scope, request.params.featureName, inline);
      if (!feature) throw notFound(`Could not find feature flag ${request.params.featureName}`);
      return feature;
    },
  );

  app.get("/api/client/delta", { config, schema: { querystring: Query } }, async (request, reply) => {
    const scope = scopeFor(tokenCaller(request), request.query as ScopeQuery);
    const since = revisionOf(request.headers["if-none-match"]);
    const delta = await features.delta(scope, since);
    if (!delta) return reply.status(304).header("etag", `"${since}"`).send();
    return reply.header("etag", `"${delta.revision}"`).send({ events: delta.events });
  });
}
