import cookie from "@fastify/cookie";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { User } from "../users/schemas.js";
import { COOKIE_WRITING, clearSessionCookie, overHttps, sessionCookie, setSessionCookie } from "./cookie.js";
import { Login } from "./schemas.js";
import { LoginRateLimited, type SessionService } from "./service.js";

const tags = ["Auth"];

/** Logging in with a username and password, under /auth/simple, as the reference. */
export const loginRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionService }> = async (
  app,
  { sessions },
) => {
  await app.register(cookie, COOKIE_WRITING);
  app.post(
    "/auth/simple/login",
    {
      schema: {
        tags,
        summary: "Log in with a username (or email) and password; the session is a cookie",
        body: Login,
        response: { 200: User },
      },
      config: { auth: "public" },
    },
    async (request, reply) => {
      try {
        const { user, session } = await sessions.login(
          request.body.username,
          request.body.password,
          request.ip,
        );
        setSessionCookie(reply, session, overHttps(request));
        return user;
      } catch (error) {
        if (error instanceof LoginRateLimited) reply.header("retry-after", String(error.retryAfterSeconds));
        throw error;
      }
    },
  );
};

/** Logging out, at /logout: the session ends and the browser is sent on, as the reference does. */
export const logoutRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionService }> = async (
  app,
  { sessions },
) => {
  await app.register(cookie, COOKIE_WRITING);
  // A browser's logout form posts whatever it posts; nothing in the body matters.
  app.addContentTypeParser("*", (_request, _payload, done) => done(null));
  for (const method of ["GET", "POST"] as const) {
    app.route({
      method,
      url: "/logout",
      schema: {
        tags,
        summary: "Log out: end the session and clear its cookie",
        response: { 302: Type.Null() },
      },
      config: { auth: "public" },
      handler: async (request, reply) => {
        const id = sessionCookie(request);
        if (id) await sessions.logout(id);
        clearSessionCookie(reply, overHttps(request));
        return reply.redirect("/signed-out");
      },
    });
  }
};
