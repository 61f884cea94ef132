import { ERRORS } from "@signalbox/protocol";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";

/**
 * Who may call a route: client keys, server-side SDK tokens, either, or anyone; `edge`
 * routes take the flag service's own tokens and check them (and their readiness) themselves.
 */
export type Access = "client" | "server" | "client-or-server" | "public" | "edge" | "ofrep";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/**
 * The key an OpenFeature provider sends: `X-API-Key`, or `Authorization` with or without
 * `Bearer`; a browser's change stream (EventSource sends no headers) names it in `key`.
 */
export function ofrepKey(request: FastifyRequest): string | undefined {
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string") return apiKey;
  const { authorization } = request.headers;
  if (typeof authorization === "string") return authorization.replace(/^Bearer /, "");
  const fromQuery = (request.query as { key?: unknown } | undefined)?.key;
  return typeof fromQuery === "string" ? fromQuery : undefined;
}

const NOT_READY_MESSAGE =
  "The Signalbox proxy has not connected to the upstream flag service and is not ready to accept requests yet.";

export interface GuardSettings {
  isReady: () => boolean;
  clientKeys: readonly string[];
  serverTokens: readonly string[];
  /** Header carrying client keys; server-side SDK tokens always come in `authorization`. */
  clientKeysHeaderName: string;
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * Runs after validation and before every handler, in the reference proxy's order: the
 * readiness check first (so even an unauthenticated call learns the proxy is not ready),
 * then the key check. CORS preflights never get here: they are answered earlier.
 * Returns the hook for each kind of access, so that a route's hook is chosen once, when the
 * route is declared, rather than looked up on every request.
 */
export function createGuard({
  isReady,
  clientKeys,
  serverTokens,
  clientKeysHeaderName,
}: GuardSettings): (access: Access) => Hook {
  const clients = new Set(clientKeys);
  const servers = new Set(serverTokens);
  const isClient = (request: FastifyRequest) => {
    const clientKey = request.headers[clientKeysHeaderName];
    return typeof clientKey === "string" && clients.has(clientKey);
  };
  const isOfrepClient = (request: FastifyRequest) => {
    const key = ofrepKey(request);
    return key !== undefined && clients.has(key);
  };
  const isServer = (request: FastifyRequest) => {
    const serverToken = request.headers.authorization;
    return typeof serverToken === "string" && servers.has(serverToken);
  };
  const allowed: Record<Exclude<Access, "edge">, (request: FastifyRequest) => boolean> = {
    public: () => true,
    client: isClient,
    server: isServer,
    "client-or-server": (request) => isClient(request) || isServer(request),
    ofrep: isOfrepClient,
  };
  return (access) => {
    if (access === "edge") return (_request, _reply, done) => done();
    const isAllowed = allowed[access];
    return (request, reply, done) => {
      if (request.method === "OPTIONS") {
        done();
      } else if (!isReady()) {
        reply.code(ERRORS.ServiceUnavailable).type("text/plain; charset=utf-8").send(NOT_READY_MESSAGE);
      } else if (!isAllowed(request)) {
        reply.code(ERRORS.AuthenticationRequired).type("text/plain; charset=utf-8").send("Unauthorized");
      } else {
        done();
      }
    };
  };
}
