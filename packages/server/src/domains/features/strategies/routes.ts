import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { JsonPatch } from "../../../shared/json-patch.js";
import { EnvironmentParams } from "../params.js";
import { SortOrder, Strategy, StrategyParams, StrategyView } from "./schemas.js";
import type { StrategyService } from "./service.js";

const tags = ["Features"];

export const strategyRoutes: FastifyPluginAsyncTypebox<{ strategies: StrategyService }> = async (
  app,
  { strategies },
) => {
  app.get(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The flag's strategies in the environment, in order",
        params: EnvironmentParams,
        response: { 200: Type.Array(StrategyView) },
      },
    },
    (request) => strategies.list(request.actor, request.params),
  );

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies",
    {
      config: { permission: "CREATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Adds a strategy to the flag in the environment",
        params: EnvironmentParams,
        body: Strategy,
        response: { 200: StrategyView },
      },
    },
    (request) => strategies.add(request.actor, request.params, request.body),
  );

  app.post(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/set-sort-order",
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Reorders the flag's strategies in the environment",
        params: EnvironmentParams,
        body: SortOrder,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      await strategies.reorder(request.actor, request.params, request.body);
    },
  );

  app.get(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One strategy", params: StrategyParams, response: { 200: StrategyView } },
    },
    (request) => strategies.get(request.actor, request.params, request.params.strategyId),
  );

  for (const [method, body, summary] of [
    ["put", Strategy, "Replaces a strategy"],
    ["patch", JsonPatch, "Changes a strategy with a JSON Patch"],
  ] as const) {
    app[method](
      "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId",
      {
        config: { permission: "UPDATE_FEATURE_STRATEGY" },
        schema: { tags, summary, params: StrategyParams, body, response: { 200: StrategyView } },
      },
      (request) => strategies.update(request.actor, request.params, request.params.strategyId, request.body),
    );
  }

  app.delete(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId",
    {
      config: { permission: "DELETE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Removes a strategy",
        params: StrategyParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      await strategies.remove(request.actor, request.params, request.params.strategyId);
    },
  );
};
