import { ERRORS } from "@signalbox/protocol";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";

/** Who may call a route: client keys, server-side SDK tokens, either, or anyone. */
export type Access = "client" | "server" | "client-or-server" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
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

/**
 * Runs after validation and before every handler, in the reference proxy's order: the
 * readiness check first (so even an unauthenticated call learns the proxy is not ready),
 * then the key check. CORS preflights never get here: they are answered earlier.
 */
export function createGuard({ isReady, clientKeys, serverTokens, clientKeysHeaderName }: GuardSettings) {
  const clients = new Set(clientKeys);
  const servers = new Set(serverTokens);
  const allowed = (request: FastifyRequest, access: Access): boolean => {
    const clientKey = request.headers[clientKeysHeaderName];
    const serverToken = request.headers.authorization;
    switch (access) {
      case "public":
        return true;
      case "client":
        return typeof clientKey === "string" && clients.has(clientKey);
      case "server":
        return typeof serverToken === "string" && servers.has(serverToken);
      case "client-or-server":
        return (
          (typeof clientKey === "string" && clients.has(clientKey)) ||
          (typeof serverToken === "string" && servers.has(serverToken))
        );
    }
  };
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.method === "OPTIONS") {
      done();
    } else if (!isReady()) {
      reply.code(ERRORS.ServiceUnavailable).type("text/plain; charset=utf-8").send(NOT_READY_MESSAGE);
    } else if (!allowed(request, request.routeOptions.config.access ?? "public")) {
      reply.code(ERRORS.AuthenticationRequired).type("text/plain; charset=utf-8").send("Unauthorized");
    } else {
      done();
    }
  };
}
