import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Actor } from "../../../access/actor.js";
import { JsonPatch } from "../../../shared/json-patch.js";
import { EnvironmentParams, FeatureParams } from "../params.js";
import { BatchBody, Variants, VariantsReply } from "./schemas.js";
import type { VariantChange, VariantService } from "./service.js";

const tags = ["Features"];
const response = { 200: VariantsReply };

export const variantRoutes: FastifyPluginAsyncTypebox<{ variants: VariantService }> = async (
  app,
  { variants },
) => {
  const reply = async (
    actor: Actor,
    { projectId, featureName }: { projectId: string; featureName: string },
    environments: string[] | undefined,
    edit: VariantChange,
  ) => ({ version: 1, variants: await variants.set(actor, projectId, featureName, environments, edit) });

  app.get(
    "/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The flag's variants in the environment",
        params: EnvironmentParams,
        response,
      },
    },
    async (request) => {
      const { projectId, featureName, environment } = request.params;
      return {
        version: 1,
        variants: await variants.ofEnvironment(request.actor, projectId, featureName, environment),
      };
    },
  );
  app.get(
    "/api/admin/projects/:projectId/features/:featureName/variants",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The flag's variants (those of its first environment)",
        params: FeatureParams,
        response,
      },
    },
    async (request) => ({
      version: 1,
      variants: await variants.ofFlag(request.actor, request.params.projectId, request.params.featureName),
    }),
  );

  // PUT replaces the variants, PATCH applies a JSON Patch to them; without an environment
  // in the path they are the reference's flag-level variants, set in every environment.
  const environmentOf = (params: object) =>
    "environment" in params ? [String(params.environment)] : undefined;
  for (const [path, params, permission, where] of [
    [
      "/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants",
      EnvironmentParams,
      "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
      "in the environment",
    ],
    [
      "/api/admin/projects/:projectId/features/:featureName/variants",
      FeatureParams,
      "UPDATE_FEATURE_VARIANTS",
      "in every environment",
    ],
  ] as const) {
    app.put(
      path,
      {
        config: { permission },
        schema: { tags, summary: `Replaces the flag's variants ${where}`, params, body: Variants, response },
      },
      (request) =>
        reply(request.actor, request.params, environmentOf(request.params), { variants: request.body }),
    );
    app.patch(
      path,
      {
        config: { permission },
        schema: {
          tags,
          summary: `Changes the flag's variants ${where} with a JSON Patch`,
          params,
          body: JsonPatch,
          response,
        },
      },
      (request) =>
        reply(request.actor, request.params, environmentOf(request.params), { patch: request.body }),
    );
  }

  // PUT as in the reference; POST as Signalbox first served it.
  app.route({
    method: ["PUT", "POST"],
    url: "/api/admin/projects/:projectId/features/:featureName/variants-batch",
    config: { permission: "UPDATE_FEATURE_ENVIRONMENT_VARIANTS" },
    schema: {
      tags,
      summary: "Replaces the flag's variants in the environments named",
      params: FeatureParams,
      body: BatchBody,
      response,
    },
    handler: (request) =>
      reply(request.actor, request.params, request.body.environments, { variants: request.body.variants }),
  });
};
