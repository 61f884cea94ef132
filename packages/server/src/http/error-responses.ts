import { ERRORS, type ErrorName } from "@signalbox/protocol";
import type { RouteOptions } from "fastify";
import { Type } from "typebox";

/**
 * The one body every refusal has (error-handler.ts renders it from ApiError), as the API
 * document names it for client generators.
 */
export const ErrorBody = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "This occurrence of the error." }),
    name: Type.Enum(Object.keys(ERRORS) as ErrorName[], {
      type: "string",
      description: "What kind of error it is; the kind fixes the status.",
    }),
    message: Type.String({ description: "What went wrong, in words for a person." }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          message: Type.String(),
          path: Type.Optional(Type.String({ description: "The field it is about, dotted." })),
        }),
        { description: "One entry per problem, naming its field where there is one." },
      ),
    ),
    // The admin API's 401 to a caller without credentials says where to log in (LoginRequired).
    path: Type.Optional(Type.String({ description: "401 without credentials: where to log in." })),
    type: Type.Optional(Type.Literal("password")),
    defaultHidden: Type.Optional(Type.Literal(false)),
    options: Type.Optional(
      Type.Array(Type.Object({ type: Type.String(), message: Type.String(), path: Type.String() }), {
        description: "401 without credentials: the other ways to log in (single sign-on).",
      }),
    ),
  },
  { description: "A refusal: its name says what kind, its message says why." },
);

/** What each documented status means, whichever route gives it. */
export const ERROR_MEANINGS = {
  400: "The request is malformed or breaks a rule; the details name each offending field.",
  401: "No credentials, or unknown or expired ones.",
  403: "The caller may not do this here.",
  404: "Something the request names does not exist, or is hidden from the caller.",
  409: "It conflicts with what exists: a name already taken, or something in a state that does not allow this.",
  413: "The request body is larger than the server accepts.",
  415: "The request body is not sent as application/json.",
  429: "Too many: failed logins (wait as long as Retry-After says), or streams on this instance (poll instead).",
  502: "A service this one depends on (the OpenID provider) could not be used.",
} as const;

export type ErrorStatus = keyof typeof ERROR_MEANINGS;

/**
 * What the code gives beyond what a route's shape says (see errorStatuses), keyed
 * "METHOD url": names already taken and objects in the wrong state (409), objects named in
 * the body (404), failed logins and reset links (401, 429), streams past an instance's limit
 * (429), single sign-on when it is off
 * (404), refused (401, 403) or its provider unreachable (502).
 * `without` is a status the shape suggests but the route never gives.
 */
export const ERROR_EXCEPTIONS: Record<string, { with?: ErrorStatus[]; without?: ErrorStatus[] }> = {
  "POST /api/admin/environments": { with: [409] },
  "DELETE /api/admin/metrics/applications/:appName": { without: [404] },
  "POST /api/admin/projects": { with: [409] },
  "POST /api/admin/projects/:projectId/environments": { with: [409] },
  "POST /api/admin/projects/:projectId/access": { with: [409] },
  "PUT /api/admin/projects/:projectId/access": { with: [409] },
  "PUT /api/admin/projects/:projectId/users/:userId/roles": { with: [409] },
  "DELETE /api/admin/projects/:projectId/users/:userId/roles": { with: [409] },
  "DELETE /api/admin/projects/:projectId/users/:userId/roles/:roleId": { with: [409] },
  "PUT /api/admin/projects/:projectId/groups/:groupId/roles": { with: [409] },
  "DELETE /api/admin/projects/:projectId/groups/:groupId/roles": { with: [409] },
  "DELETE /api/admin/projects/:projectId/groups/:groupId/roles/:roleId": { with: [409] },
  "POST /api/admin/roles": { with: [409] },
  "PUT /api/admin/roles/:id": { with: [409] },
  "POST /api/admin/roles/validate": { with: [409] },
  "POST /api/admin/groups": { with: [409] },
  "PUT /api/admin/groups/:groupId": { with: [409] },
  "POST /api/admin/segments": { with: [409] },
  "PUT /api/admin/segments/:id": { with: [409] },
  "DELETE /api/admin/segments/:id": { with: [409] },
  "POST /api/admin/context": { with: [409] },
  "DELETE /api/admin/context/:name": { with: [409] },
  "POST /api/admin/context/validate": { with: [409] },
  "POST /api/admin/tag-types": { with: [409] },
  "POST /api/admin/tag-types/validate": { with: [409] },
  "POST /api/admin/strategies": { with: [409] },
  "DELETE /api/admin/strategies/:name": { with: [409] },
  "POST /api/admin/projects/:projectId/features": { with: [409] },
  "POST /api/admin/projects/:projectId/features/:featureName/versions/:eventId/restore": { with: [409] },
  "POST /api/admin/features/validate": { with: [409] },
  "POST /api/admin/features/:featureName/tags": { with: [409] },
  "POST /api/admin/tags/features": { with: [404] },
  "PUT /api/admin/tags/features": { with: [404] },
  "POST /api/admin/features-batch/export": { with: [404] },
  "POST /api/admin/user-admin/reset-password": { with: [404] },
  "POST /api/admin/user-admin": { with: [409] },
  "PUT /api/admin/user-admin/:id": { with: [409] },
  "POST /api/admin/service-account": { with: [409] },
  "PUT /api/admin/service-account/:id": { with: [409] },
  "POST /api/admin/user/tokens": { with: [409] },
  "POST /api/admin/service-account/:id/token": { with: [409] },
  "POST /api/admin/projects/:projectId/environments/:environment/change-requests": { with: [409] },
  "DELETE /api/admin/projects/:projectId/change-requests/:id": { with: [409] },
  "PUT /api/admin/projects/:projectId/change-requests/:id/state": { with: [409] },
  "PUT /api/admin/projects/:projectId/change-requests/:id/title": { with: [409] },
  "PUT /api/admin/projects/:projectId/change-requests/:id/approvers": { with: [409] },
  "POST /api/admin/projects/:projectId/change-requests/:id/comments": { with: [409] },
  "PUT /api/admin/projects/:projectId/change-requests/:id/changes/:changeId": { with: [409] },
  "DELETE /api/admin/projects/:projectId/change-requests/:id/changes/:changeId": { with: [409] },
  "POST /auth/simple/login": { with: [401, 429] },
  "GET /api/client/streaming": { with: [429] },
  "GET /ofrep/v1/events": { with: [429] },
  // A logout form's body is not read, but one sent as JSON is parsed, and can be malformed.
  "POST /logout": { with: [400] },
  "GET /auth/reset/validate": { with: [401] },
  "POST /auth/reset/password": { with: [401] },
  "GET /auth/oidc/login": { with: [404, 502] },
  "GET /auth/oidc/callback": { with: [401, 403, 404, 502] },
};

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The refusals a route can give, from its shape: what it validates (400), who may call it
 * (401 and 403: every token route checks the caller's token or permission, even `NONE`,
 * which SDK tokens lack; a public route refuses changes sent from another site's pages),
 * what its path names (404) and whether it reads a body (413, 415); then the exceptions.
 */
export function errorStatuses(route: RouteOptions, method: string): ErrorStatus[] {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const publicRoute = route.config?.auth === "public";
  const body = schema.body !== undefined && BODY_METHODS.has(method);
  const statuses = new Set<ErrorStatus>();
  if (body || schema.params !== undefined || schema.querystring !== undefined) statuses.add(400);
  if (!publicRoute) statuses.add(401);
  if (!publicRoute || method !== "GET") statuses.add(403);
  if (schema.params !== undefined) statuses.add(404);
  if (body) {
    statuses.add(413);
    statuses.add(415);
  }
  const exception = ERROR_EXCEPTIONS[`${method} ${route.url}`];
  for (const status of exception?.with ?? []) statuses.add(status);
  for (const status of exception?.without ?? []) statuses.delete(status);
  return [...statuses].sort((a, b) => a - b);
}
