import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  NewStrategyDefinition,
  StrategyDefinition,
  StrategyDefinitionList,
  StrategyDefinitionUpdate,
  StrategyName,
} from "./schemas.js";
import type { StrategyDefinitionService } from "./service.js";

const tags = ["Strategies"];

/** The strategies flags may use, built-in and custom, under /api/admin/strategies. */
export const strategyDefinitionRoutes: FastifyPluginAsyncTypebox<{
  definitions: StrategyDefinitionService;
}> = async (app, { definitions }) => {
  app.get(
    "/api/admin/strategies",
    {
      schema: { tags, summary: "List the strategies", response: { 200: StrategyDefinitionList } },
      config: { permission: "NONE" },
    },
    async (request) => ({ version: 1 as const, strategies: await definitions.list(request.actor) }),
  );

  app.get(
    "/api/admin/strategies/:name",
    {
      schema: {
        tags,
        summary: "Get a strategy",
        params: StrategyName,
        response: { 200: StrategyDefinition },
      },
      config: { permission: "NONE" },
    },
    (request) => definitions.get(request.actor, request.params.name),
  );

  app.post(
    "/api/admin/strategies",
    {
      schema: {
        tags,
        summary: "Create a custom strategy",
        body: NewStrategyDefinition,
        response: { 201: StrategyDefinition },
      },
      config: { permission: "CREATE_STRATEGY" },
    },
    async (request, reply) => {
      const created = await definitions.create(request.actor, request.body);
      return reply.status(201).header("location", `strategies/${created.name}`).send(created);
    },
  );

  app.put(
    "/api/admin/strategies/:name",
    {
      schema: {
        tags,
        summary: "Change a custom strategy",
        params: StrategyName,
        body: StrategyDefinitionUpdate,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_STRATEGY" },
    },
    async (request) => {
      await definitions.update(request.actor, request.params.name, request.body);
    },
  );

  for (const [path, deprecated, summary] of [
    ["/api/admin/strategies/:name/deprecate", true, "Deprecate a strategy"],
    ["/api/admin/strategies/:name/reactivate", false, "Reactivate a deprecated strategy"],
  ] as const) {
    app.post(
      path,
      {
        schema: { tags, summary, params: StrategyName, response: { 200: Type.Null() } },
        config: { permission: "UPDATE_STRATEGY" },
      },
      async (request) => {
        await definitions.setDeprecated(request.actor, request.params.name, deprecated);
      },
    );
  }

  app.delete(
    "/api/admin/strategies/:name",
    {
      schema: {
        tags,
        summary: "Delete a custom strategy no flag uses",
        params: StrategyName,
        response: { 200: Type.Null() },
      },
      config: { permission: "DELETE_STRATEGY" },
    },
    async (request) => {
      await definitions.remove(request.actor, request.params.name);
    },
  );
};
