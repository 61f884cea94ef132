import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { ChangeRequestConfiguration } from "./configuration.js";
import type { ChangeRequestDetails } from "./details.js";
import type { ChangeRequestDrafts } from "./drafts.js";
import type { ChangeRequestQueries } from "./queries.js";
import {
  AvailableReviewers,
  ChangeInput,
  ChangeParams,
  ChangeRequest,
  ChangesBody,
  CommentBody,
  ConfigBody,
  EnvironmentConfig,
  EnvironmentParams,
  ProjectParams,
  RequestParams,
  ReviewersBody,
  SearchQuery,
  SearchResult,
  StateBody,
  TitleBody,
} from "./schemas.js";
import type { ChangeRequestTransitions } from "./transitions.js";

const tags = ["Change Requests"];
// Who may do what depends on the request (its author, its state, its environment): the
// service decides. Writing one belongs to a person, never to an API token.
const person = { permission: "NONE", person: true } as const;
const none = { permission: "NONE" } as const;

/** The change-request services the routes answer from, each holding one part of the work. */
export interface ChangeRequests {
  configuration: ChangeRequestConfiguration;
  queries: ChangeRequestQueries;
  drafts: ChangeRequestDrafts;
  details: ChangeRequestDetails;
  transitions: ChangeRequestTransitions;
}

/** A project's change requests, at the reference's paths. */
export const changeRequestRoutes: FastifyPluginAsyncTypebox<{ changeRequests: ChangeRequests }> = async (
  app,
  { changeRequests },
) => {
  app.get(
    "/api/admin/projects/:projectId/change-requests/config",
    {
      config: none,
      schema: {
        tags,
        summary: "Which environments of the project require change requests, and how many approvals",
        params: ProjectParams,
        response: { 200: Type.Array(EnvironmentConfig) },
      },
    },
    (request) => changeRequests.configuration.config(request.actor, request.params.projectId),
  );

  app.put(
    "/api/admin/projects/:projectId/environments/:environment/change-requests/config",
    {
      config: { permission: "PROJECT_CHANGE_REQUEST_WRITE" },
      schema: {
        tags,
        summary: "Requires change requests in an environment of the project, or stops requiring them",
        params: EnvironmentParams,
        body: ConfigBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, environment } = request.params;
      await changeRequests.configuration.configure(request.actor, projectId, environment, request.body);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/api/admin/projects/:projectId/environments/:environment/change-requests",
    {
      config: person,
      schema: {
        tags,
        summary: "Adds one change or several to the caller's draft for the environment",
        params: EnvironmentParams,
        body: ChangesBody,
        response: { 200: ChangeRequest },
      },
    },
    (request) => {
      const { projectId, environment } = request.params;
      const changes = Array.isArray(request.body) ? request.body : [request.body];
      return changeRequests.drafts.add(request.actor, projectId, environment, changes);
    },
  );

  app.get(
    "/api/admin/projects/:projectId/change-requests",
    {
      config: none,
      schema: {
        tags,
        summary: "Every change request of the project, newest first",
        params: ProjectParams,
        response: { 200: Type.Array(ChangeRequest) },
      },
    },
    (request) => changeRequests.queries.list(request.actor, request.params.projectId),
  );

  app.get(
    "/api/admin/projects/:projectId/change-requests/available-reviewers/:environment",
    {
      config: none,
      schema: {
        tags,
        summary: "The people who may approve change requests in the environment",
        params: EnvironmentParams,
        response: { 200: AvailableReviewers },
      },
    },
    (request) =>
      changeRequests.queries.availableReviewers(
        request.actor,
        request.params.projectId,
        request.params.environment,
      ),
  );

  app.get(
    "/api/admin/projects/:projectId/change-requests/pending",
    {
      config: none,
      schema: {
        tags,
        summary: "The caller's open change requests in the environments that require them",
        params: ProjectParams,
        response: { 200: Type.Array(ChangeRequest) },
      },
    },
    (request) => changeRequests.queries.pending(request.actor, request.params.projectId),
  );

  app.get(
    "/api/admin/projects/:projectId/change-requests/:id",
    {
      config: none,
      schema: {
        tags,
        summary: "One change request: its changes with their conflicts, reviews, comments and schedule",
        params: RequestParams,
        response: { 200: ChangeRequest },
      },
    },
    (request) => changeRequests.queries.get(request.actor, request.params.projectId, request.params.id),
  );

  app.delete(
    "/api/admin/projects/:projectId/change-requests/:id",
    {
      config: person,
      schema: { tags, summary: "Discards a draft", params: RequestParams, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await changeRequests.drafts.discard(request.actor, request.params.projectId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    "/api/admin/projects/:projectId/change-requests/:id/state",
    {
      config: person,
      schema: {
        tags,
        summary: "Sends to review, approves, applies, schedules, cancels or rejects a change request",
        params: RequestParams,
        body: StateBody,
        response: { 200: ChangeRequest },
      },
    },
    (request) =>
      changeRequests.transitions.setState(
        request.actor,
        request.params.projectId,
        request.params.id,
        request.body,
      ),
  );

  app.put(
    "/api/admin/projects/:projectId/change-requests/:id/title",
    {
      config: person,
      schema: {
        tags,
        summary: "Names a change request",
        params: RequestParams,
        body: TitleBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, id } = request.params;
      await changeRequests.details.setTitle(request.actor, projectId, id, request.body.title);
      return reply.code(204).send(null);
    },
  );

  app.put(
    "/api/admin/projects/:projectId/change-requests/:id/approvers",
    {
      config: person,
      schema: {
        tags,
        summary: "Asks these people to review the change request",
        params: RequestParams,
        body: ReviewersBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, id } = request.params;
      await changeRequests.details.setReviewers(request.actor, projectId, id, request.body.reviewers);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/api/admin/projects/:projectId/change-requests/:id/comments",
    {
      config: person,
      schema: {
        tags,
        summary: "Comments on a change request",
        params: RequestParams,
        body: CommentBody,
        response: { 201: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, id } = request.params;
      await changeRequests.details.comment(request.actor, projectId, id, request.body.text);
      return reply.code(201).send(null);
    },
  );

  app.put(
    "/api/admin/projects/:projectId/change-requests/:id/changes/:changeId",
    {
      config: person,
      schema: {
        tags,
        summary: "Replaces one change; a request under review goes back to review without its approvals",
        params: ChangeParams,
        body: ChangeInput,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, id, changeId } = request.params;
      await changeRequests.drafts.editChange(request.actor, projectId, id, changeId, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    "/api/admin/projects/:projectId/change-requests/:id/changes/:changeId",
    {
      config: person,
      schema: {
        tags,
        summary: "Discards one change; a request under review goes back to review without its approvals",
        params: ChangeParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { projectId, id, changeId } = request.params;
      await changeRequests.drafts.discardChange(request.actor, projectId, id, changeId);
      return reply.code(204).send(null);
    },
  );
};

/** `/api/admin/search/change-requests`: requests across the projects the caller sees. */
export const changeRequestSearchRoutes: FastifyPluginAsyncTypebox<{
  changeRequests: Pick<ChangeRequests, "queries">;
}> = async (app, { changeRequests }) => {
  app.get(
    "/api/admin/search/change-requests",
    {
      config: none,
      schema: {
        tags,
        summary:
          "Change requests by project, author, requested reviewer and state; or those awaiting the caller's review",
        querystring: SearchQuery,
        response: { 200: SearchResult },
      },
    },
    (request) => changeRequests.queries.search(request.actor, request.query),
  );
};
