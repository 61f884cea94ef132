import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  ClientFeaturesSchema,
  ERRORS,
  FrontendQuerySchema,
  FrontendTogglesSchema,
  ProxyRequestSchema,
  readImpactMetrics,
} from "@signalbox/protocol";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from "fastify";
import type { ProxyConfig } from "./config.js";
import { SchemaViolation } from "./errors.js";
import { matchesEtag } from "./etag.js";
import type { Evaluations } from "./evaluation.js";
import type { ImpactMetricsAggregator } from "./impact-metrics.js";
import type { UsageMetrics } from "./metrics.js";
import type { OperationalMetrics } from "./prometheus.js";
import type { ClientRegistrations } from "./registrations.js";
import { ErrorBody, REPORT_LIMITS, ReportedMetrics, ReportedRegistration, text } from "./schemas.js";
import type { SerializedResponse } from "./toggles.js";

export type App = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteDependencies {
  config: ProxyConfig;
  evaluations: Evaluations;
  usage: UsageMetrics;
  /** Clients' impact metrics, sent upstream in the proxy's own report. */
  impact: ImpactMetricsAggregator;
  registrations: ClientRegistrations;
  operational: OperationalMetrics;
}

const CACHE_CONTROL = "public, max-age=2";
const TEXT = "text/plain; charset=utf-8";
const ALL_DISABLED =
  "The /proxy/all endpoint is disabled. Set enableAllEndpoint (ENABLE_ALL_ENDPOINT=true) to turn it on.";
// The reference proxy's answer for a disabled endpoint. It has no name in the shared
// catalogue, whose NotImplementedError (405) is the service's answer to something else.
const DISABLED = 501;

const guarded = {
  [ERRORS.ValidationError]: ErrorBody,
  [ERRORS.AuthenticationRequired]: text("The client key is missing or unknown."),
  [ERRORS.ServiceUnavailable]: text("The proxy has no configuration yet."),
};
const togglesResponses = { 200: FrontendTogglesSchema, ...guarded };
const OK = text("Accepted.");
// Registrations and usage reports come from anyone holding a (public) client key: the
// reference proxy's body limit (Express's default, 100 kB) is far above what an SDK sends.
const REPORT_BODY_LIMIT = 100 * 1024;
const REPORT_LIMITS_NOTE =
  `Bodies up to ${REPORT_BODY_LIMIT} bytes, strings up to ${REPORT_LIMITS.length} characters, ` +
  `lists and maps up to ${REPORT_LIMITS.entries} entries; fields the protocol does not define are dropped.`;
const reportResponses = { 200: OK, ...guarded, [ERRORS.ContentTooLarge]: ErrorBody };

/**
 * A bodiless POST is an empty request, as with the reference proxy. Flag names are checked
 * here, before the schema's type coercion would turn `null` or `true` into a name.
 */
const readToggleRequest = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
  request.body ??= {};
  const { toggles } = request.body as { toggles?: unknown };
  const index = Array.isArray(toggles) ? toggles.findIndex((name) => typeof name !== "string") : -1;
  done(index >= 0 ? new SchemaViolation(`/toggles/${index}`, "must be string") : undefined);
};

export function proxyRoutes(app: App, deps: RouteDependencies): void {
  const { config, evaluations, usage, impact, registrations, operational } = deps;
  const base = `${config.proxyBasePath}/proxy`;
  const vary = `Origin, ${config.clientKeysHeaderName}`;

  // POST answers carry the ETag but never 304: If-None-Match on other methods than GET/HEAD
  // asks for 412 (RFC 9110), and the reference proxy ignores it there.
  const answer = (request: FastifyRequest, reply: FastifyReply, result: SerializedResponse): void => {
    reply.header("cache-control", CACHE_CONTROL).header("etag", result.etag).header("vary", vary);
    if (request.method !== "POST" && matchesEtag(request.headers["if-none-match"], result.etag)) {
      reply.code(304).send();
    } else {
      reply.type("application/json; charset=utf-8").send(result.body);
    }
  };
  // Without enrichers an answer is ready at once: it is sent without a promise, and the
  // handler returns nothing for Fastify to wait on.
  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    pending: SerializedResponse | Promise<SerializedResponse>,
  ) =>
    pending instanceof Promise
      ? pending.then((result) => answer(request, reply, result))
      : answer(request, reply, pending);
  const clientAddress = (request: FastifyRequest) => () => request.ip;
  const disabled = (reply: FastifyReply) => {
    reply.code(DISABLED).type(TEXT).send(ALL_DISABLED);
  };

  app.get(
    base,
    {
      schema: {
        summary: "Flags enabled for the context in the query string",
        description: "Answers 304 when If-None-Match holds the ETag of the same answer.",
        querystring: FrontendQuerySchema,
        response: togglesResponses,
      },
      config: { access: "client" },
    },
    (request, reply) =>
      send(
        request,
        reply,
        evaluations.toggles({ input: request.query, clientAddress: clientAddress(request), all: false }),
      ),
  );

  app.post(
    base,
    {
      schema: {
        summary: "Flags enabled for the context, or exactly the listed flags",
        body: ProxyRequestSchema,
        response: togglesResponses,
      },
      preValidation: readToggleRequest,
      config: { access: "client" },
    },
    (request, reply) => {
      const { context: input, toggles } = request.body;
      return send(
        request,
        reply,
        evaluations.toggles({ input, toggles, clientAddress: clientAddress(request), all: false }),
      );
    },
  );

  const allSchema = {
    hide: !config.enableAllEndpoint,
    response: { ...togglesResponses, [DISABLED]: text(ALL_DISABLED) },
  };
  app.get(
    `${base}/all`,
    {
      schema: {
        ...allSchema,
        summary: "Every flag, on or off, for the context",
        querystring: FrontendQuerySchema,
      },
      config: { access: "client" },
    },
    (request, reply) => {
      if (!config.enableAllEndpoint) return disabled(reply);
      return send(
        request,
        reply,
        evaluations.toggles({ input: request.query, clientAddress: clientAddress(request), all: true }),
      );
    },
  );

  app.post(
    `${base}/all`,
    {
      schema: {
        ...allSchema,
        summary: "Every flag, on or off, or exactly the listed flags",
        body: ProxyRequestSchema,
      },
      preValidation: readToggleRequest,
      config: { access: "client" },
    },
    (request, reply) => {
      if (!config.enableAllEndpoint) return disabled(reply);
      const { context: input, toggles } = request.body;
      return send(
        request,
        reply,
        evaluations.toggles({ input, toggles, clientAddress: clientAddress(request), all: true }),
      );
    },
  );

  for (const url of [`${base}/client/metrics`, `${base}/all/client/metrics`]) {
    app.post(
      url,
      {
        schema: {
          summary: "Usage counted by a client SDK; added to what the proxy sends upstream",
          description: REPORT_LIMITS_NOTE,
          body: ReportedMetrics,
          response: reportResponses,
        },
        bodyLimit: REPORT_BODY_LIMIT,
        config: { access: "client-or-server" },
      },
      async (request, reply) => {
        const { bucket, impactMetrics } = request.body;
        if (bucket) usage.addBucket(bucket.toggles);
        if (impactMetrics !== undefined) impact.add(readImpactMetrics(impactMetrics));
        return reply.type(TEXT).send("OK");
      },
    );
  }

  app.post(
    `${base}/client/register`,
    {
      schema: {
        summary: "An SDK's registration; forwarded upstream",
        description: REPORT_LIMITS_NOTE,
        body: ReportedRegistration,
        response: reportResponses,
      },
      bodyLimit: REPORT_BODY_LIMIT,
      config: { access: "client-or-server" },
    },
    async (request, reply) => {
      registrations.add(request.body);
      return reply.type(TEXT).send("OK");
    },
  );

  app.get(
    `${base}/client/features`,
    {
      schema: {
        summary: "The flag configuration, for server-side SDKs and other proxies",
        response: {
          200: ClientFeaturesSchema,
          ...guarded,
          [ERRORS.AuthenticationRequired]: text("The token is not a server-side SDK token."),
        },
      },
      config: { access: "server" },
    },
    (request, reply) => send(request, reply, evaluations.clientFeatures()),
  );

  app.get(
    `${base}/health`,
    {
      schema: {
        summary: "ok once the proxy has a configuration",
        response: { 200: text("ok", "text/html") },
      },
      config: { access: "public" },
    },
    async (_request, reply) => reply.type("text/html; charset=utf-8").send("ok"),
  );

  app.get(
    `${base}/internal-backstage/prometheus`,
    {
      schema: {
        summary: "Operational metrics in the Prometheus text format",
        response: { 200: text("Metrics.") },
      },
      config: { access: "public" },
    },
    async (_request, reply) => {
      const { contentType, text } = await operational.scrape();
      return reply.type(contentType).send(text);
    },
  );
}
