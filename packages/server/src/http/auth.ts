import { fastifyCookie } from "@fastify/cookie";
import {
  authenticationRequired,
  type LoginOption,
  LoginRequired,
  noAccess,
  notFound,
} from "@signalbox/protocol";
import type {
  FastifyContextConfig,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from "fastify";
import type { Actor, TokenActor, TokenType } from "../access/actor.js";
import { canSee, requirePermission } from "../access/can.js";
import type { Permission } from "../access/permissions.js";
import { SESSION_COOKIE } from "../domains/sessions/cookie.js";
import { changesState, provenance } from "./request-origin.js";

/** Which callers a route admits; routes say it in their `config.auth`, admin being the default. */
export type Access = "admin" | "client" | "frontend" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: Access;
    /** What an admin route asks of its caller: one permission, or any one of several. */
    permission?: Permission | readonly Permission[];
    /** The route is about the calling person (their profile, tokens, favourites): API tokens are refused. */
    person?: boolean;
    /** The token may come in `X-API-Key` (or a `key` query parameter) instead of `authorization`, as OpenFeature's protocol allows. */
    apiKeyHeader?: boolean;
  }
  interface FastifyRequest {
    /** Who is calling; undefined only on public routes. */
    actor: Actor;
  }
}

/** Turns what a request presents into who is calling; undefined when it is unknown or expired. */
export interface Credentials {
  /**
   * The `authorization` header: an API token, or a personal access token (`user:…`). A
   * secret already known is answered at once, so that an SDK poll waits on no promise.
   */
  bearer(secret: string): Actor | undefined | Promise<Actor | undefined>;
  /** The session cookie a login set. */
  session(id: string): Promise<Actor | undefined>;
  /** The ways to log in besides a password, offered to a caller who brought no credentials. */
  loginOptions(): Promise<LoginOption[]>;
}

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

/**
 * The onRequest hook that finds who is calling and whether the route admits them. A hook
 * with a callback rather than an async one: an SDK poll whose token is already known is
 * admitted without a promise made, where it is answered thousands of times a second.
 */
export function authenticate(credentials: Credentials) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // No route, no credentials to check: an unknown path is 404 for every caller.
    if (request.is404 || request.method === "OPTIONS") {
      done();
      return;
    }
    const { config } = request.routeOptions;
    const access = config.auth ?? "admin";
    if (access === "public") {
      // Logging in (or out, or resetting a password) from another site's page would sign a
      // person in as someone else; scripts, which no page drives, log in as before.
      const from = changesState(request) ? provenance(request) : undefined;
      if (from?.from === "elsewhere") {
        throw noAccess(`This must be sent from this service's own pages, but ${from.evidence}.`);
      }
      done();
      return;
    }
    const actor = identify(credentials, request, access);
    if (actor instanceof Promise) {
      actor.then((found) => admit(request, found, access, config)).then(() => done(), done);
      return;
    }
    admit(request, actor, access, config);
    done();
  };
}

function admit(
  request: FastifyRequest,
  actor: Actor,
  access: Exclude<Access, "public">,
  config: FastifyContextConfig,
): void {
  request.actor = actor;
  if (access === "admin") {
    const params = request.params as { projectId?: string; environment?: string };
    // A private project a caller may not see does not exist for them: 404, never 403.
    if (params.projectId !== undefined && !canSee(actor, params.projectId)) {
      throw notFound(`Could not find project with id ${params.projectId}`);
    }
    if (config.person && actor.kind !== "user") {
      throw noAccess(
        "This endpoint belongs to a person: log in, or use a personal access token, which belongs to a user. API tokens have no user.",
      );
    }
    // Checked before the body is read: a caller without the permission learns nothing
    // about what a valid request would look like.
    requirePermission(actor, config.permission ?? "ADMIN", {
      project: params.projectId,
      environment: params.environment,
    });
  } else if (actor.kind !== "token" || !admitted[access].includes(actor.type)) {
    const what = actor.kind === "token" ? `A ${actor.type} token` : "A person's login";
    throw noAccess(`${what} cannot be used here: this endpoint needs a ${access} token.`);
  }
}

/**
 * OpenFeature's providers may send the token in `X-API-Key`; a browser's change stream
 * (EventSource sends no headers) names it in the `key` query parameter.
 */
function ofrepKey(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  if (typeof header === "string") return header;
  const query = (request.query as { key?: unknown } | undefined)?.key;
  return typeof query === "string" ? query : undefined;
}

function identify(credentials: Credentials, request: FastifyRequest, access: Access): Actor | Promise<Actor> {
  const apiKey = request.routeOptions.config.apiKeyHeader ? ofrepKey(request) : undefined;
  const header = request.headers.authorization ?? apiKey;
  // SDKs send the bare token; some HTTP clients insist on a scheme.
  const secret = header?.startsWith("Bearer ") ? header.slice(7) : header;
  const byHeader = secret ? credentials.bearer(secret) : undefined;
  if (byHeader instanceof Promise) {
    return byHeader.then((actor) => actor ?? identifyOtherwise(credentials, request, access, header));
  }
  return byHeader ?? identifyOtherwise(credentials, request, access, header);
}

/** A caller whose authorization header names no one: a browser's session, or a refusal. */
async function identifyOtherwise(
  credentials: Credentials,
  request: FastifyRequest,
  access: Access,
  header: string | undefined,
): Promise<Actor> {
  // The admin API also takes a browser's session, as the reference does when a header fails.
  // Parsed here rather than on every request: SDK polls carry no session worth the work.
  const cookie = access === "admin" ? request.headers.cookie : undefined;
  const session = cookie ? fastifyCookie.parse(cookie)[SESSION_COOKIE] : undefined;
  if (session && changesState(request)) requireOwnPages(request);
  const bySession = session ? await credentials.session(session) : undefined;
  if (bySession) return bySession;
  if (header) throw authenticationRequired("The API token is unknown or has expired.");
  if (session) throw authenticationRequired("Your session has expired: log in again.");
  if (access !== "admin")
    throw authenticationRequired("You must send an API token in the authorization header.");
  throw new LoginRequired(
    "You must log in, or send an API token or personal access token in the authorization header.",
    "/auth/simple/login",
    await credentials.loginOptions(),
  );
}

/**
 * A browser sends the session cookie with whatever any page of the same site asks, a form
 * post or a bodiless no-cors fetch included: a change made with it must prove that this
 * service's own pages made it. A token in the authorization header is never sent by a
 * browser on its own, so it needs no such proof.
 */
function requireOwnPages(request: FastifyRequest): void {
  const from = provenance(request);
  if (from.from === "own pages") return;
  const scripts =
    "Scripts should send a personal access token or an API token in the authorization header instead of a session.";
  throw noAccess(
    from.from === "elsewhere"
      ? `A change made with a login session must come from this service's own pages, but ${from.evidence}. ${scripts}`
      : `A change made with a login session must come from this service's own pages, and this request does not say where it comes from (no Sec-Fetch-Site or Origin header). ${scripts}`,
  );
}

/** The token behind an SDK or frontend request: only tokens are admitted there. */
export const tokenCaller = (request: FastifyRequest): TokenActor => request.actor as TokenActor;
