import { fastifyCookie } from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Only the routes that write cookies register @fastify/cookie (with this), so that its hooks
 * run on logins, not on every SDK poll; cookies are read with `readCookie`. The request hook
 * stays on: @fastify/cookie 11.1.0 (the last on cookie 1, whose engines take Node 20) sends
 * the cookies a route sets only when it has one.
 */
export const COOKIE_WRITING = { hook: "onRequest" } as const;

/** The reference's cookie name, so its clients and proxies in front of it recognise it. */
export const SESSION_COOKIE = "unleash-session";

// Out of reach of scripts (HttpOnly), sent on top-level navigation from other sites but not
// on their forms or fetches (Lax), and only over HTTPS when it came over HTTPS.
const options = (secure: boolean) => ({ path: "/", httpOnly: true, sameSite: "lax" as const, secure });

export function setSessionCookie(
  reply: FastifyReply,
  session: { id: string; expiresAt: Date },
  secure: boolean,
) {
  reply.setCookie(SESSION_COOKIE, session.id, { ...options(secure), expires: session.expiresAt });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(SESSION_COOKIE, options(secure));
}

/** A cookie the request carries, if any. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? fastifyCookie.parse(header)[name] : undefined;
}

/** The session id a request's cookie carries, if any. */
export const sessionCookie = (request: FastifyRequest) => readCookie(request, SESSION_COOKIE);

/** Whether the request came over HTTPS, which decides whether the cookie is marked Secure. */
export const overHttps = (request: FastifyRequest) => request.protocol === "https";
