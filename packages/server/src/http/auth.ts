import type { FastifyRequest } from "fastify";
import type { Principal, TokenService, TokenType } from "../domains/tokens/service.js";
import { authenticationRequired, noAccess } from "./errors.js";

/** Which callers a route admits; routes say it in their `config.auth`, admin being the default. */
export type Access = "admin" | "client" | "frontend" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: Access;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

// Admin tokens may also read what SDKs read, as in the reference.
const admitted: Record<Exclude<Access, "public">, readonly TokenType[]> = {
  admin: ["admin"],
  client: ["client", "admin"],
  frontend: ["frontend"],
};

export function authenticate(tokens: TokenService) {
  return async (request: FastifyRequest): Promise<void> => {
    // No route, no credentials to check: an unknown path is 404 for every caller.
    if (request.routeOptions.url === undefined) return;
    const access = request.routeOptions.config?.auth ?? "admin";
    if (access === "public" || request.method === "OPTIONS") return;
    const header = request.headers.authorization;
    if (!header) throw authenticationRequired("You must send an API token in the authorization header.");
    // SDKs send the bare token; some HTTP clients insist on a scheme.
    const secret = header.startsWith("Bearer ") ? header.slice(7) : header;
    const principal = await tokens.resolve(secret);
    if (!principal) throw authenticationRequired("The API token is unknown or has expired.");
    if (!admitted[access].includes(principal.type)) {
      throw noAccess(`A ${principal.type} token cannot be used here: this endpoint needs a ${access} token.`);
    }
    request.principal = principal;
  };
}

/** The name events record as their author. */
export const actor = (request: FastifyRequest): string => request.principal?.name ?? "unknown";
