import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { Strategy } from "../features/strategies/schemas.js";
import type { DefaultStrategyService } from "./default-strategy.js";
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

/** Under `/api/admin/projects`. */
export const projectRoutes: FastifyPluginAsyncTypebox<{
  projects: ProjectService;
  defaultStrategies: DefaultStrategyService;
}> = async (app, { projects, defaultStrategies }) => {
  // Endpoint 7.
  app.get(
    "",
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
      projects: await projects.list(request.actor, request.query.archived ?? false),
    }),
  );

  app.get(
    "/:projectId",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One project", params: ProjectId, response: { 200: ProjectDetails } },
    },
    (request) => projects.get(request.actor, request.params.projectId),
  );

  app.post(
    "",
    {
      config: { permission: "CREATE_PROJECT" },
      schema: { tags, summary: "Creates a project", body: NewProject, response: { 201: ProjectDetails } },
    },
    async (request, reply) => {
      const created = await projects.create(request.actor, request.body);
      return reply.status(201).header("location", `projects/${created.id}`).send(created);
    },
  );

  app.put(
    "/:projectId",
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
    "/:projectId/settings",
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
    "/archive/:projectId",
    {
      config: { permission: "DELETE_PROJECT" },
      schema: { tags, summary: "Archives a project without active flags", params: ProjectId, response: done },
    },
    async (request) => {
      await projects.archive(request.actor, request.params.projectId);
    },
  );

  app.post(
    "/revive/:projectId",
    {
      config: { permission: "UPDATE_PROJECT" },
      schema: { tags, summary: "Revives an archived project", params: ProjectId, response: done },
    },
    async (request) => {
      await projects.revive(request.actor, request.params.projectId);
    },
  );

  app.delete(
    "/:projectId",
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
      await projects.remove(request.actor, request.params.projectId);
    },
  );

  app.post(
    "/:projectId/environments",
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
      await projects.addEnvironment(request.actor, request.params.projectId, request.body.environment);
    },
  );

  app.delete(
    "/:projectId/environments/:environment",
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
      await projects.removeEnvironment(request.actor, projectId, environment);
    },
  );

  // POST, as the reference's path takes it.
  app.post(
    "/:projectId/environments/:environment/default-strategy",
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
