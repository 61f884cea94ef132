import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { Strategy } from "../../shared/strategy.js";
import type { DefaultStrategyService } from "../features/strategies/default-strategy.js";
import type { ProjectLifecycle } from "./lifecycle.js";
import type { ProjectOverview } from "./overview.js";
import {
  EnvironmentBody,
  ListQuery,
  NewProject,
  ProjectDetails,
  ProjectEnvironment,
  ProjectId,
  ProjectList,
  ProjectUpdate,
  Settings,
} from "./schemas.js";
import type { ProjectService } from "./service.js";

const tags = ["Projects"];
const done = { 200: Type.Null() };

/**
 * A project's settings are the project service's, how it reads its overview's, and what
 * reaches its flags (creation, archiving, deletion, environments) its lifecycle's.
 */
export const projectRoutes: FastifyPluginAsyncTypebox<{
  projects: ProjectService;
  overview: ProjectOverview;
  lifecycle: ProjectLifecycle;
  defaultStrategies: DefaultStrategyService;
}> = async (app, { projects, overview, lifecycle, defaultStrategies }) => {
  // Endpoint 7.
  app.get(
    "/api/admin/projects",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The active projects, or the archived ones",
        querystring: ListQuery,
        response: { 200: ProjectList },
      },
    },
    async (request) => ({
      version: 1,
      projects: await overview.list(request.actor, request.query.archived ?? false),
    }),
  );

  app.get(
    "/api/admin/projects/:projectId",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One project", params: ProjectId, response: { 200: ProjectDetails } },
    },
    (request) => overview.get(request.actor, request.params.projectId),
  );

  app.post(
    "/api/admin/projects",
    {
      config: { permission: "CREATE_PROJECT" },
      schema: { tags, summary: "Creates a project", body: NewProject, response: { 201: ProjectDetails } },
    },
    async (request, reply) => {
      const created = await lifecycle.create(request.actor, request.body);
      return reply.status(201).header("location", `projects/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/projects/:projectId",
    {
      config: { permission: "UPDATE_PROJECT" },
      schema: { tags, summary: "Updates a project", params: ProjectId, body: ProjectUpdate, response: done },
    },
    async (request) => {
      await projects.update(request.actor, request.params.projectId, request.body);
    },
  );

  // Endpoint 12.
  app.put(
    "/api/admin/projects/:projectId/settings",
    {
      config: { permission: ["UPDATE_PROJECT", "PROJECT_SETTINGS_WRITE"] },
      schema: {
        tags,
        summary: "Changes a project's mode or flag naming pattern",
        params: ProjectId,
        body: Settings,
        response: done,
      },
    },
    async (request) => {
      await projects.updateSettings(request.actor, request.params.projectId, request.body);
    },
  );

  // The reference's paths: `/projects/:id/archive` archives a project's flags instead.
  app.post(
    "/api/admin/projects/archive/:projectId",
    {
      config: { permission: "DELETE_PROJECT" },
      schema: { tags, summary: "Archives a project without active flags", params: ProjectId, response: done },
    },
    async (request) => {
      await lifecycle.archive(request.actor, request.params.projectId);
    },
  );

  app.post(
    "/api/admin/projects/revive/:projectId",
    {
      config: { permission: "UPDATE_PROJECT" },
      schema: { tags, summary: "Revives an archived project", params: ProjectId, response: done },
    },
    async (request) => {
      await lifecycle.revive(request.actor, request.params.projectId);
    },
  );

  app.delete(
    "/api/admin/projects/:projectId",
    {
      config: { permission: "DELETE_PROJECT" },
      schema: {
        tags,
        summary: "Deletes a project without active flags, and its archived flags",
        params: ProjectId,
        response: done,
      },
    },
    async (request) => {
      await lifecycle.remove(request.actor, request.params.projectId);
    },
  );

  app.post(
    "/api/admin/projects/:projectId/environments",
    {
      config: { permission: "UPDATE_PROJECT" },
      schema: {
        tags,
        summary: "Starts using an environment in the project",
        params: ProjectId,
        body: EnvironmentBody,
        response: done,
      },
    },
    async (request) => {
      await lifecycle.addEnvironment(request.actor, request.params.projectId, request.body.environment);
    },
  );

  app.delete(
    "/api/admin/projects/:projectId/environments/:environment",
    {
      config: { permission: "UPDATE_PROJECT" },
      schema: {
        tags,
        summary: "Stops using an environment in the project, with its flags' configuration there",
        params: ProjectEnvironment,
        response: done,
      },
    },
    async (request) => {
      const { projectId, environment } = request.params;
      await lifecycle.removeEnvironment(request.actor, projectId, environment);
    },
  );

  // POST, as the reference's path takes it.
  app.post(
    "/api/admin/projects/:projectId/environments/:environment/default-strategy",
    {
      config: { permission: ["UPDATE_PROJECT", "PROJECT_DEFAULT_STRATEGY_WRITE"] },
      schema: {
        tags,
        summary: "Sets the strategy a flag switched on in the environment without one is given",
        params: ProjectEnvironment,
        body: Strategy,
        response: { 200: Strategy },
      },
    },
    (request) => {
      const { projectId, environment } = request.params;
      return defaultStrategies.set(request.actor, projectId, environment, request.body);
    },
  );
};
