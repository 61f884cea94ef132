import { authenticationRequired, noAccess } from "@signalbox/protocol";
import type { FastifyRequest, RouteOptions } from "fastify";
import type { Actor, TokenActor, TokenType } from "../access/actor.js";
import { requirePermission } from "../access/can.js";
import type { Permission } from "../access/permissions.js";

/** Which callers a route admits; routes say it in their `config.auth`, admin being the default. */
export type Access = "admin" | "client" | "frontend" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: Access;
    /** What an admin route asks of its caller: one permission, or any one of several. */
    permission?: Permission | readonly Permission[];
  }
  interface FastifyRequest {
    /** Who is calling; undefined only on public routes. */
    actor: Actor;
  }
}

/** Finds the token a secret belongs to, if it is known and unexpired. */
export type ResolveToken = (secret: string) => Promise<TokenActor | undefined>;

// Admin tokens may also read what SDKs read, as in the reference.
const admitted: Record<"client" | "frontend", readonly TokenType[]> = {
  client: ["client", "admin"],
  frontend: ["frontend"],
};

/** An admin route that forgets its permission is a start-up failure, not an open door. */
export function requireDeclaredPermission(route: RouteOptions): void {
  const access = route.config?.auth ?? "admin";
  const methods = [route.method].flat();
  const answered = methods.some((method) => method !== "HEAD" && method !== "OPTIONS");
  if (access === "admin" && answered && route.config?.permission === undefined) {
    throw new Error(`${String(route.method)} ${route.url} declares no permission`);
  }
}

export function authenticate(resolve: ResolveToken) {
  return async (request: FastifyRequest): Promise<void> => {
    // No route, no credentials to check: an unknown path is 404 for every caller.
    if (request.routeOptions.url === undefined) return;
    const config = request.routeOptions.config;
    const access = config?.auth ?? "admin";
    if (access === "public" || request.method === "OPTIONS") return;
    const header = request.headers.authorization;
    if (!header) throw authenticationRequired("You must send an API token in the authorization header.");
    // SDKs send the bare token; some HTTP clients insist on a scheme.
    const secret = header.startsWith("Bearer ") ? header.slice(7) : header;
    const actor = await resolve(secret);
    if (!actor) throw authenticationRequired("The API token is unknown or has expired.");
    request.actor = actor;
    if (access === "admin") {
      // Checked before the body is read: a caller without the permission learns nothing
      // about what a valid request would look like.
      const params = request.params as { projectId?: string; environment?: string };
      requirePermission(actor, config.permission ?? "ADMIN", {
        project: params.projectId,
        environment: params.environment,
      });
    } else if (!admitted[access].includes(actor.type)) {
      throw noAccess(`A ${actor.type} token cannot be used here: this endpoint needs a ${access} token.`);
    }
  };
}

/** The token behind an SDK or frontend request: only tokens are admitted there. */
export const tokenCaller = (request: FastifyRequest): TokenActor => request.actor as TokenActor;
