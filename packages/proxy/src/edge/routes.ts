import {
  ClientFeaturesDeltaSchema,
  ClientFeaturesSchema,
  ERRORS,
  FrontendQuerySchema,
  FrontendRequestSchema,
  FrontendTogglesSchema,
  frontendApiContext,
  readImpactMetrics,
} from "@signalbox/protocol";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { matchesEtag } from "../etag.js";
import { evaluateToggles } from "../evaluation.js";
import type { ImpactMetricsAggregator } from "../impact-metrics.js";
import type { App } from "../routes.js";
import { ErrorBody, ReportedMetrics, ReportedRegistration } from "../schemas.js";
import type { SerializedResponse } from "../toggles.js";
import type { Forwarder } from "./forward.js";
import type { Scope, Scopes } from "./scopes.js";
import type { EdgeStreams } from "./streams.js";
import type { KnownToken, TokenCheck } from "./tokens.js";

export interface EdgeRouteDependencies {
  basePath: string;
  validator: TokenCheck;
  scopes: Scopes;
  streams: EdgeStreams;
  /** Where SDKs' reports go upstream; none offline, where they are taken and dropped. */
  forwarder: Forwarder | undefined;
  /** Where SDKs' impact metrics go: into the proxy's own report (none offline, where they are dropped). */
  impact: ImpactMetricsAggregator | undefined;
  /** How long a request for a scope seen for the first time waits for its configuration. */
  firstFetchMs: number;
}

interface Caller {
  token: KnownToken;
  scope: Scope;
}

declare module "fastify" {
  interface FastifyRequest {
    edgeCaller: Caller | null;
  }
}

/** A refusal as the flag service words it: `{error}` with the status of its name. */
class Refusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

// SDK headers the upstream reads beside the body, kept on what is forwarded.
const FORWARDED_HEADERS = [
  "unleash-appname",
  "unleash-instanceid",
  "unleash-connection-id",
  "unleash-sdk",
  "unleash-client-spec",
  "user-agent",
];
// The service's answers to SDKs' reports: 202 for server SDKs, 200 for browser SDKs.
const ACCEPTED = { client: 202, frontend: 200 } as const;

const refusals = {
  [ERRORS.AuthenticationRequired]: ErrorBody,
  [ERRORS.NoAccessError]: ErrorBody,
  [ERRORS.ServiceUnavailable]: ErrorBody,
};

/** An SDK's own filters on its listing, as the service reads them. */
const FeatureFilters = Type.Object({
  project: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

/** Frontend tokens are served only beside a client token of their environment (511 without one). */
const NO_CLIENT_TOKEN = 511;
const frontendRefusals = { ...refusals, [NO_CLIENT_TOKEN]: ErrorBody };

const secretOf = (request: FastifyRequest) => {
  const header = request.headers.authorization;
  if (typeof header !== "string" || header === "") return undefined;
  return header.startsWith("Bearer ") ? header.slice(7) : header;
};

const revisionOf = (header: string | string[] | undefined) => {
  const value = Array.isArray(header) ? header[0] : header;
  const digits = value?.replace(/^W\//, "").replace(/"/g, "").trim();
  return digits && /^\d+$/.test(digits) ? Number(digits) : undefined;
};

/**
 * The flag service's SDK paths, served from the proxy's own configurations as Unleash Edge
 * serves them: server SDKs with the service's client tokens (`/api/client/*`), browser SDKs
 * with its frontend tokens (`/api/frontend`). Each token is checked upstream the first time
 * it is seen; each distinct scope of client tokens is followed once.
 */
export function edgeRoutes(app: App, deps: EdgeRouteDependencies): void {
  const { validator, scopes, streams, forwarder, impact, firstFetchMs } = deps;
  const api = `${deps.basePath}/api`;
  app.decorateRequest("edgeCaller", null);

  const identify = async (request: FastifyRequest, kind: KnownToken["kind"]): Promise<Caller> => {
    const secret = secretOf(request);
    if (!secret)
      throw new Refusal(ERRORS.AuthenticationRequired, "An API token is required in Authorization.");
    const validation = await validator.validate(secret);
    if (validation.outcome === "unknown") {
      throw new Refusal(
        ERRORS.ServiceUnavailable,
        "The flag service cannot be asked about this token now; try again shortly.",
      );
    }
    if (validation.outcome === "invalid") {
      throw new Refusal(ERRORS.AuthenticationRequired, "The flag service does not know this token.");
    }
    const { token } = validation;
    if (token.kind !== kind) {
      throw new Refusal(
        ERRORS.NoAccessError,
        kind === "client"
          ? "This is a frontend token: it reads /api/frontend, not /api/client."
          : "This is a client token: it reads /api/client, not /api/frontend.",
      );
    }
    const scope = kind === "client" ? scopes.forClient(token) : scopes.forFrontend(token);
    if (!scope) {
      // Unleash Edge's answer when it follows no client token that sees what this one does.
      throw new Refusal(
        NO_CLIENT_TOKEN,
        `No client token for the ${token.environment} environment that sees projects ${token.projects.join(", ")} has been used here yet: configure one (TOKENS) for frontend tokens to be served.`,
      );
    }
    if (!scope.snapshot) {
      await Promise.race([scope.ready, new Promise((resolve) => setTimeout(resolve, firstFetchMs).unref())]);
    }
    if (!scope.snapshot) {
      throw new Refusal(
        ERRORS.ServiceUnavailable,
        "The configuration for this token has not arrived from the flag service yet.",
      );
    }
    return { token, scope };
  };

  const guard = (kind: KnownToken["kind"]) => async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      request.edgeCaller = await identify(request, kind);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return reply.code(error.statusCode).send({ error: error.message });
    }
  };
  const caller = (request: FastifyRequest) => request.edgeCaller!;

  const answer = (request: FastifyRequest, reply: FastifyReply, result: SerializedResponse): void => {
    reply.header("etag", result.etag);
    if (request.method === "GET" && matchesEtag(request.headers["if-none-match"], result.etag)) {
      reply.code(304).send();
    } else {
      reply.type("application/json; charset=utf-8").send(result.body);
    }
  };

  const client = { config: { access: "edge" as const }, preHandler: guard("client") };
  const frontend = { config: { access: "edge" as const }, preHandler: guard("frontend") };

  app.get(
    `${api}/client/features`,
    {
      ...client,
      schema: {
        summary: "The configuration a client token sees, as the flag service serves it",
        description: "`project` and `namePrefix` narrow it, as on the service; `tag` is not applied here.",
        querystring: FeatureFilters,
        response: { 200: ClientFeaturesSchema, ...refusals },
      },
    },
    (request, reply) => {
      const { project, namePrefix } = request.query;
      const projects = project === undefined ? undefined : [project].flat();
      answer(request, reply, caller(request).scope.document({ projects, namePrefix }));
    },
  );

  app.get(
    `${api}/client/delta`,
    {
      ...client,
      schema: {
        summary: "What changed since the revision in If-None-Match, or everything",
        response: { 200: ClientFeaturesDeltaSchema, 304: Type.Null(), ...refusals },
      },
    },
    (request, reply) => {
      const changes = caller(request).scope.changes(revisionOf(request.headers["if-none-match"]));
      if (changes.events.length === 0) reply.code(304).send(null);
      else reply.header("etag", `"${changes.revision}"`).send({ events: changes.events });
    },
  );

  app.get(
    `${api}/client/streaming`,
    {
      ...client,
      schema: {
        summary: "The configuration's changes as server-sent events",
        description:
          "`unleash-connected` first (a hydration, or what was missed since `Last-Event-ID`), then `unleash-updated` for each change; 429 when the proxy holds as many streams as it may.",
        response: {
          200: {
            description: "Server-sent events whose data is a ClientFeaturesDelta.",
            content: { "text/event-stream": { schema: Type.String() } },
          },
          [ERRORS.RateLimitError]: ErrorBody,
          ...refusals,
        },
      },
    },
    (request, reply) => {
      if (streams.full) {
        reply
          .code(ERRORS.RateLimitError)
          .send({ error: "This proxy holds as many streams as it may: poll instead." });
        return;
      }
      const { token, scope } = caller(request);
      reply.hijack();
      streams.open(reply.raw, token.secret, scope, revisionOf(request.headers["last-event-id"]));
    },
  );

  const forwardedHeaders = (request: FastifyRequest, secret: string) => {
    const headers: Record<string, string> = { authorization: secret };
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    return headers;
  };

  const reports = [
    { name: "register", kind: "registration", summary: "An SDK's registration", body: ReportedRegistration },
    { name: "metrics", kind: "usage", summary: "An SDK's usage report", body: ReportedMetrics },
  ] as const;
  for (const kind of ["client", "frontend"] as const) {
    const path = kind === "client" ? "/client" : "/frontend/client";
    const status = ACCEPTED[kind] as 200;
    for (const report of reports) {
      app.post(
        `${api}${path}/${report.name}`,
        {
          ...(kind === "client" ? client : frontend),
          schema: {
            summary: `${report.summary}, forwarded upstream with its token`,
            body: report.body,
            response: { [status]: Type.Null(), ...(kind === "client" ? refusals : frontendRefusals) },
          },
        },
        (request, reply) => {
          const { token } = caller(request);
          const headers = forwardedHeaders(request, token.secret);
          let body: Record<string, unknown> = request.body;
          // Impact metrics leave in the proxy's own report, added up with other clients' and
          // labelled with the token's environment where the SDK did not say: not forwarded too.
          if ("impactMetrics" in body) {
            const { impactMetrics, ...rest } = body;
            const environment: Record<string, string> =
              token.environment === "*" ? {} : { environment: token.environment };
            if (forwarder) impact?.add(readImpactMetrics(impactMetrics), environment);
            body = rest;
          }
          forwarder?.add(`${path}/${report.name}`, report.kind, headers, body);
          reply.code(status).send(null);
        },
      );
    }
  }

  const toggles = (request: FastifyRequest, input: Record<string, unknown> | undefined) => {
    const { token, scope } = caller(request);
    const context = frontendApiContext(input ?? {}, request.ip);
    return evaluateToggles(scope.view(token.projects), context, { all: false }, undefined, "frontend-api");
  };

  app.get(
    `${api}/frontend`,
    {
      ...frontend,
      schema: {
        summary: "The flags on for the context in the query string, for a frontend token",
        querystring: FrontendQuerySchema,
        response: { 200: FrontendTogglesSchema, ...frontendRefusals },
      },
    },
    (request, reply) => answer(request, reply, toggles(request, request.query)),
  );

  app.post(
    `${api}/frontend`,
    {
      ...frontend,
      schema: {
        summary: "The flags on for the context in the body, for a frontend token",
        body: FrontendRequestSchema,
        response: { 200: FrontendTogglesSchema, ...frontendRefusals },
      },
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    (request, reply) => answer(request, reply, toggles(request, request.body.context)),
  );
}
