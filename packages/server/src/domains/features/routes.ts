import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { JsonPatch } from "../../shared/json-patch.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { DependencyService } from "./dependencies.js";
import {
  BatchVariants,
  CreateFeature,
  Dependency,
  EnvironmentParams,
  FeatureParams,
  ProjectParams,
  Strategy,
  StrategyParams,
  Tag,
  UpdateFeature,
  Variants,
} from "./schemas.js";
import type { FeatureService, VariantChange } from "./service.js";
import type { StrategyService } from "./strategies.js";
import type { FeatureTagService } from "./tags.js";

export interface FeatureServices {
  features: FeatureService;
  strategies: StrategyService;
  tags: FeatureTagService;
  dependencies: DependencyService;
}

const Names = Type.Object({ features: Type.Array(Type.String(), { minItems: 1 }) });
const ListQuery = Type.Object({
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(
    Type.Union([Type.String({ pattern: "^\\w+:.+$" }), Type.Array(Type.String({ pattern: "^\\w+:.+$" }))]),
  ),
});
const TagChanges = Type.Object({
  addedTags: Type.Optional(Type.Array(Tag)),
  removedTags: Type.Optional(Type.Array(Tag)),
});

const base = "/api/admin/projects/:projectId/features/:featureName";
const environment = `${base}/environments/:environment`;

export function featureRoutes(app: App, { features, strategies, tags, dependencies }: FeatureServices): void {
  // Flags
  app.post(
    "/api/admin/projects/:projectId/features",
    { schema: { params: ProjectParams, body: CreateFeature } },
    (request) => features.create(request.params.projectId, request.body, request.actor.name),
  );
  app.post(
    "/api/admin/features/validate",
    { schema: { body: Type.Object({ name: urlSafeName() }) } },
    async (request) => {
      await features.validateName(request.body.name);
      return {};
    },
  );
  app.get(
    "/api/admin/projects/:projectId/features",
    { schema: { params: ProjectParams, querystring: ListQuery } },
    async (request) => {
      const tagsAsked = request.query.tag === undefined ? [] : [request.query.tag].flat();
      return {
        version: 2,
        features: await features.listProject(request.params.projectId, {
          namePrefix: request.query.namePrefix,
          tags: tagsAsked,
        }),
      };
    },
  );
  app.get(base, { schema: { params: FeatureParams } }, (request) =>
    features.get(request.params.projectId, request.params.featureName),
  );
  app.get(
    "/api/admin/features/:featureName",
    { schema: { params: Type.Object({ featureName: Type.String() }) } },
    (request) => features.get(undefined, request.params.featureName),
  );
  app.put(base, { schema: { params: FeatureParams, body: UpdateFeature } }, (request) =>
    features.update(request.params.projectId, request.params.featureName, request.body, request.actor.name),
  );
  app.patch(base, { schema: { params: FeatureParams, body: JsonPatch } }, (request) =>
    features.update(request.params.projectId, request.params.featureName, request.body, request.actor.name),
  );
  app.post(
    "/api/admin/projects/:projectId/stale",
    {
      schema: {
        params: ProjectParams,
        body: Type.Object({ features: Type.Array(Type.String()), stale: Type.Boolean() }),
      },
    },
    async (request, reply) => {
      await features.setStale(
        request.params.projectId,
        request.body.features,
        request.body.stale,
        request.actor.name,
      );
      return reply.status(202).send();
    },
  );

  // Archive: archiving, reviving and deleting for good
  app.delete(base, { schema: { params: FeatureParams } }, async (request, reply) => {
    await features.archive(request.params.projectId, [request.params.featureName], request.actor.name);
    return reply.status(202).send();
  });
  app.post(
    "/api/admin/projects/:projectId/archive",
    { schema: { params: ProjectParams, body: Names } },
    async (request, reply) => {
      await features.archive(request.params.projectId, request.body.features, request.actor.name);
      return reply.status(202).send();
    },
  );
  app.post(
    "/api/admin/projects/:projectId/revive",
    { schema: { params: ProjectParams, body: Names } },
    async (request, reply) => {
      await features.revive(request.params.projectId, request.body.features, request.actor.name);
      return reply.status(200).send();
    },
  );
  app.post(
    "/api/admin/projects/:projectId/delete",
    { schema: { params: ProjectParams, body: Names } },
    async (request, reply) => {
      await features.remove(request.params.projectId, request.body.features, request.actor.name);
      return reply.status(200).send();
    },
  );
  app.get("/api/admin/archive/features", async () => ({
    version: 2,
    features: await features.listArchived(),
  }));
  app.get(
    "/api/admin/archive/features/:projectId",
    { schema: { params: ProjectParams } },
    async (request) => ({
      version: 2,
      features: await features.listArchived(request.params.projectId),
    }),
  );
  const Named = Type.Object({ featureName: Type.String() });
  app.post(
    "/api/admin/archive/revive/:featureName",
    { schema: { params: Named } },
    async (request, reply) => {
      await features.revive(undefined, [request.params.featureName], request.actor.name);
      return reply.status(200).send();
    },
  );
  app.delete("/api/admin/archive/:featureName", { schema: { params: Named } }, async (request, reply) => {
    await features.remove(undefined, [request.params.featureName], request.actor.name);
    return reply.status(200).send();
  });

  // Environments of a flag
  for (const [suffix, enabled] of [
    ["on", true],
    ["off", false],
  ] as const) {
    app.post(
      `${environment}/${suffix}`,
      {
        schema: {
          params: EnvironmentParams,
          querystring: Type.Object({ shouldActivateDisabledStrategies: Type.Optional(Type.Boolean()) }),
        },
      },
      async (request, reply) => {
        const { projectId, featureName, environment: env } = request.params;
        const activate = request.query.shouldActivateDisabledStrategies === true;
        await features.setEnabled(projectId, featureName, env, enabled, request.actor.name, activate);
        return reply.status(200).send();
      },
    );
  }

  // Variants, per environment and for the whole flag
  app.get(`${environment}/variants`, { schema: { params: EnvironmentParams } }, async (request) => ({
    version: 1,
    variants: await features.environmentVariants(
      request.params.projectId,
      request.params.featureName,
      request.params.environment,
    ),
  }));
  // PUT replaces the variants, PATCH applies a JSON Patch to them; without an environment
  // in the path they are the reference's flag-level variants, set in every environment.
  const variantsReply = async (
    { projectId, featureName }: { projectId: string; featureName: string },
    environments: string[] | undefined,
    change: VariantChange,
    by: string,
  ) => ({
    version: 1,
    variants: await features.setVariants(projectId, featureName, environments, change, by),
  });
  const environmentOf = (params: object) =>
    "environment" in params ? [String(params.environment)] : undefined;
  for (const [path, params] of [
    [`${environment}/variants`, EnvironmentParams],
    [`${base}/variants`, FeatureParams],
  ] as const) {
    app.put(path, { schema: { params, body: Variants } }, (request) =>
      variantsReply(
        request.params,
        environmentOf(request.params),
        { variants: request.body },
        request.actor.name,
      ),
    );
    app.patch(path, { schema: { params, body: JsonPatch } }, (request) =>
      variantsReply(
        request.params,
        environmentOf(request.params),
        { patch: request.body },
        request.actor.name,
      ),
    );
  }
  app.get(`${base}/variants`, { schema: { params: FeatureParams } }, async (request) => ({
    version: 1,
    variants: (await features.get(request.params.projectId, request.params.featureName)).variants,
  }));
  // PUT as in the reference; POST as Signalbox first served it.
  app.route({
    method: ["PUT", "POST"],
    url: `${base}/variants-batch`,
    schema: {
      params: FeatureParams,
      body: Type.Object({
        variants: BatchVariants,
        environments: Type.Array(Type.String(), { minItems: 1 }),
      }),
    },
    handler: (request) =>
      variantsReply(
        request.params,
        request.body.environments,
        { variants: request.body.variants },
        request.actor.name,
      ),
  });

  // Strategies
  app.get(`${environment}/strategies`, { schema: { params: EnvironmentParams } }, (request) =>
    strategies.list(request.params),
  );
  app.post(
    `${environment}/strategies`,
    { schema: { params: EnvironmentParams, body: Strategy } },
    (request) => strategies.add(request.params, request.body, request.actor.name),
  );
  app.post(
    `${environment}/strategies/set-sort-order`,
    {
      schema: {
        params: EnvironmentParams,
        body: Type.Array(Type.Object({ id: Type.String(), sortOrder: Type.Integer() })),
      },
    },
    async (request, reply) => {
      await strategies.reorder(request.params, request.body, request.actor.name);
      return reply.status(200).send();
    },
  );
  app.get(`${environment}/strategies/:strategyId`, { schema: { params: StrategyParams } }, (request) =>
    strategies.get(request.params, request.params.strategyId),
  );
  app.put(
    `${environment}/strategies/:strategyId`,
    { schema: { params: StrategyParams, body: Strategy } },
    (request) =>
      strategies.update(request.params, request.params.strategyId, request.body, request.actor.name),
  );
  app.patch(
    `${environment}/strategies/:strategyId`,
    { schema: { params: StrategyParams, body: JsonPatch } },
    (request) =>
      strategies.update(request.params, request.params.strategyId, request.body, request.actor.name),
  );
  app.delete(
    `${environment}/strategies/:strategyId`,
    { schema: { params: StrategyParams } },
    async (request, reply) => {
      await strategies.remove(request.params, request.params.strategyId, request.actor.name);
      return reply.status(200).send();
    },
  );

  // Tags
  const TagParams = Type.Object({ featureName: Type.String() });
  app.get("/api/admin/features/:featureName/tags", { schema: { params: TagParams } }, async (request) => ({
    version: 1,
    tags: await tags.list(request.params.featureName),
  }));
  app.post(
    "/api/admin/features/:featureName/tags",
    { schema: { params: TagParams, body: Tag } },
    async (request, reply) =>
      reply.status(201).send(await tags.add(request.params.featureName, request.body, request.actor.name)),
  );
  app.put(
    "/api/admin/features/:featureName/tags",
    { schema: { params: TagParams, body: TagChanges } },
    async (request) => {
      const { addedTags = [], removedTags = [] } = request.body;
      await tags.change([request.params.featureName], addedTags, removedTags, request.actor.name);
      return { version: 1, tags: await tags.list(request.params.featureName) };
    },
  );
  app.delete(
    "/api/admin/features/:featureName/tags/:type/:value",
    {
      schema: {
        params: Type.Object({ featureName: Type.String(), type: Type.String(), value: Type.String() }),
      },
    },
    async (request, reply) => {
      const { featureName, type, value } = request.params;
      await tags.remove(featureName, { type, value }, request.actor.name);
      return reply.status(200).send();
    },
  );
  for (const method of ["post", "put"] as const) {
    app[method](
      "/api/admin/tags/features",
      {
        schema: {
          body: Type.Object({ features: Type.Array(Type.String(), { minItems: 1 }), tags: TagChanges }),
        },
      },
      async (request, reply) => {
        const { addedTags = [], removedTags = [] } = request.body.tags;
        await tags.change(request.body.features, addedTags, removedTags, request.actor.name);
        return reply.status(200).send();
      },
    );
  }

  // Dependencies
  app.post(
    `${base}/dependencies`,
    { schema: { params: FeatureParams, body: Dependency } },
    async (request, reply) => {
      await dependencies.add(
        request.params.projectId,
        request.params.featureName,
        request.body,
        request.actor.name,
      );
      return reply.status(200).send();
    },
  );
  app.delete(
    `${base}/dependencies/:parent`,
    {
      schema: {
        params: Type.Object({ projectId: Type.String(), featureName: Type.String(), parent: Type.String() }),
      },
    },
    async (request, reply) => {
      const { projectId, featureName, parent } = request.params;
      await dependencies.remove(projectId, featureName, parent, request.actor.name);
      return reply.status(200).send();
    },
  );
  app.delete(`${base}/dependencies`, { schema: { params: FeatureParams } }, async (request, reply) => {
    await dependencies.remove(
      request.params.projectId,
      request.params.featureName,
      undefined,
      request.actor.name,
    );
    return reply.status(200).send();
  });
  app.get("/api/admin/projects/:projectId/dependencies", { schema: { params: ProjectParams } }, (request) =>
    dependencies.hasAny(request.params.projectId),
  );

  // Lifecycle
  app.get(`${base}/lifecycle`, { schema: { params: FeatureParams } }, (request) =>
    features.lifecycle(request.params.projectId, request.params.featureName),
  );
  app.post(
    `${base}/lifecycle/complete`,
    {
      schema: {
        params: FeatureParams,
        body: Type.Object({
          status: Type.Enum(["kept", "discarded"]),
          statusValue: Type.Optional(Type.String()),
        }),
      },
    },
    async (request, reply) => {
      const { projectId, featureName } = request.params;
      await features.complete(
        projectId,
        featureName,
        request.body.status,
        request.body.statusValue,
        request.actor.name,
      );
      return reply.status(200).send();
    },
  );
  app.post(`${base}/lifecycle/uncomplete`, { schema: { params: FeatureParams } }, async (request, reply) => {
    await features.uncomplete(request.params.projectId, request.params.featureName, request.actor.name);
    return reply.status(200).send();
  });
}
