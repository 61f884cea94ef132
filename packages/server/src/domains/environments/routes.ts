import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  Environment,
  EnvironmentList,
  EnvironmentName,
  EnvironmentUpdate,
  NewEnvironment,
  SortOrder,
} from "./schemas.js";
import type { EnvironmentService } from "./service.js";

const tags = ["Environments"];

/** The instance's environments, under /api/admin/environments. */
export const environmentRoutes: FastifyPluginAsyncTypebox<{ environments: EnvironmentService }> = async (
  app,
  { environments },
) => {
  app.get(
    "/api/admin/environments",
    {
      schema: { tags, summary: "List the environments", response: { 200: EnvironmentList } },
      config: { permission: "NONE" },
    },
    async (request) => ({ version: 1 as const, environments: await environments.list(request.actor) }),
  );

  app.get(
    "/api/admin/environments/:name",
    {
      schema: {
        tags,
        summary: "Get an environment",
        params: EnvironmentName,
        response: { 200: Environment },
      },
      config: { permission: "NONE" },
    },
    (request) => environments.get(request.actor, request.params.name),
  );

  app.post(
    "/api/admin/environments",
    {
      schema: {
        tags,
        summary: "Create an environment",
        body: NewEnvironment,
        response: { 201: Environment },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const created = await environments.create(request.actor, request.body);
      return reply.status(201).header("location", `environments/${created.name}`).send(created);
    },
  );

  app.put(
    "/api/admin/environments/update/:name",
    {
      schema: {
        tags,
        summary: "Change an environment's type and position",
        params: EnvironmentName,
        body: EnvironmentUpdate,
        response: { 200: Environment },
      },
      config: { permission: "ADMIN" },
    },
    (request) => environments.update(request.actor, request.params.name, request.body),
  );

  app.put(
    "/api/admin/environments/sort-order",
    {
      schema: {
        tags,
        summary: "Reorder environments",
        body: SortOrder,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await environments.setSortOrder(request.actor, request.body);
    },
  );

  for (const [path, enabled] of [
    ["/api/admin/environments/:name/on", true],
    ["/api/admin/environments/:name/off", false],
  ] as const) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary: `Switch an environment ${enabled ? "on" : "off"}`,
          params: EnvironmentName,
          response: { 204: Type.Null() },
        },
        config: { permission: "ADMIN" },
      },
      async (request, reply) => {
        await environments.setEnabled(request.actor, request.params.name, enabled);
        reply.status(204);
      },
    );
  }

  app.delete(
    "/api/admin/environments/:name",
    {
      schema: {
        tags,
        summary: "Delete an environment",
        params: EnvironmentName,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await environments.remove(request.actor, request.params.name);
    },
  );
};
