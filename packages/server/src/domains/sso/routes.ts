import cookie from "@fastify/cookie";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { COOKIE_WRITING, overHttps, readCookie, setSessionCookie } from "../sessions/cookie.js";
import { ATTEMPT_COOKIE, ATTEMPT_SECONDS, decodeAttempt, encodeAttempt } from "./attempt.js";
import { CallbackQuery, LoginQuery, OidcSettings, OidcSettingsInput } from "./schemas.js";
import type { SsoService } from "./service.js";

const tags = ["Auth"];

/** The OpenID Connect settings, under /api/admin/auth/oidc/settings: admins only, as in the reference. */
export const ssoSettingsRoutes: FastifyPluginAsyncTypebox<{ sso: SsoService }> = async (app, { sso }) => {
  app.get(
    "/api/admin/auth/oidc/settings",
    {
      schema: { tags, summary: "Get the OpenID Connect settings", response: { 200: OidcSettings } },
      config: { permission: "ADMIN" },
    },
    (request) => sso.settings(request.actor),
  );

  app.post(
    "/api/admin/auth/oidc/settings",
    {
      schema: {
        tags,
        summary: "Set the OpenID Connect settings",
        body: OidcSettingsInput,
        response: { 200: OidcSettings },
      },
      config: { permission: "ADMIN" },
    },
    (request) => sso.saveSettings(request.actor, request.body),
  );
};

/**
 * Where this service was reached, as the browser sees it: what the provider is told to send
 * people back to. Behind a proxy, TRUST_PROXY lets X-Forwarded-Proto and -Host say it.
 */
const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

// Sent to the sign-in routes only; Lax, so the provider's redirect back (a top-level
// navigation from another site) brings it.
const attemptCookie = (request: FastifyRequest) => ({
  path: "/auth/oidc",
  httpOnly: true,
  sameSite: "lax" as const,
  secure: overHttps(request),
});

const redirect = (reply: FastifyReply, location: string) =>
  reply.header("cache-control", "no-store").redirect(location, 302);

/** Signing in through the provider, under /auth/oidc: public, as any sign-in page. */
export const ssoLoginRoutes: FastifyPluginAsyncTypebox<{ sso: SsoService }> = async (app, { sso }) => {
  await app.register(cookie, COOKIE_WRITING);
  app.get(
    "/auth/oidc/login",
    {
      schema: {
        tags,
        summary: "Sign in with OpenID Connect: redirects to the provider",
        querystring: LoginQuery,
        response: { 302: Type.Null() },
      },
      config: { auth: "public" },
    },
    async (request, reply) => {
      const { url, attempt } = await sso.beginLogin(origin(request), request.query.redirect);
      reply.setCookie(ATTEMPT_COOKIE, encodeAttempt(attempt), {
        ...attemptCookie(request),
        maxAge: ATTEMPT_SECONDS,
      });
      return redirect(reply, url);
    },
  );

  app.get(
    "/auth/oidc/callback",
    {
      schema: {
        tags,
        summary: "Where the provider sends people back: opens a session and redirects into the service",
        querystring: CallbackQuery,
        response: { 302: Type.Null() },
      },
      config: { auth: "public" },
    },
    async (request, reply) => {
      // An attempt is good for one answer, whatever it is.
      reply.clearCookie(ATTEMPT_COOKIE, attemptCookie(request));
      const { session, redirect: to } = await sso.completeLogin(
        origin(request),
        request.url,
        decodeAttempt(readCookie(request, ATTEMPT_COOKIE)),
      );
      setSessionCookie(reply, session, overHttps(request));
      return redirect(reply, to);
    },
  );
};
