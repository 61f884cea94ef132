import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { EnvironmentParams } from "../features/params.js";
import type { ReleasePlanService } from "./plans.js";
import type { SafeguardService } from "./safeguards.js";
import {
  AddPlan,
  EnvironmentSafeguard,
  EnvironmentSafeguardParams,
  MilestoneParams,
  Plan,
  PlanParams,
  PlanSafeguard,
  PlanSafeguardParams,
  ProgressionInput,
  ProgressionParams,
  SafeguardInput,
  Template,
  TemplateInput,
  TemplateParams,
} from "./schemas.js";
import type { ReleaseTemplateService } from "./templates.js";

const tags = ["Release management"];
const done = { 200: Type.Null() };
const templates = "/api/admin/release-plan-templates";
const environment = "/api/admin/projects/:projectId/features/:featureName/environments/:environment";
const plan = `${environment}/release-plans/:planId`;

/** The template library, at the reference's paths. */
export const releaseTemplateRoutes: FastifyPluginAsyncTypebox<{ templates: ReleaseTemplateService }> = async (
  app,
  { templates: library },
) => {
  app.get(
    templates,
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "Release templates that are not archived",
        querystring: Type.Object({ includeArchived: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Array(Template) },
      },
    },
    (request) => library.list(request.actor, request.query.includeArchived ?? false),
  );

  app.post(
    templates,
    {
      config: { permission: "RELEASE_PLAN_TEMPLATE_CREATE" },
      schema: {
        tags,
        summary: "Creates a release template",
        body: TemplateInput,
        response: { 201: Template },
      },
    },
    async (request, reply) => reply.status(201).send(await library.create(request.actor, request.body)),
  );

  app.get(
    `${templates}/:templateId`,
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One release template", params: TemplateParams, response: { 200: Template } },
    },
    (request) => library.get(request.actor, request.params.templateId),
  );

  app.put(
    `${templates}/:templateId`,
    {
      config: { permission: "RELEASE_PLAN_TEMPLATE_UPDATE" },
      schema: {
        tags,
        summary: "Replaces a release template; plans made from it keep theirs",
        params: TemplateParams,
        body: TemplateInput,
        response: { 200: Template },
      },
    },
    (request) => library.update(request.actor, request.params.templateId, request.body),
  );

  app.delete(
    `${templates}/:templateId`,
    {
      config: { permission: "RELEASE_PLAN_TEMPLATE_DELETE" },
      schema: { tags, summary: "Deletes a release template", params: TemplateParams, response: done },
    },
    async (request) => {
      await library.remove(request.actor, request.params.templateId);
    },
  );

  app.post(
    `${templates}/archive/:templateId`,
    {
      config: { permission: "RELEASE_PLAN_TEMPLATE_UPDATE" },
      schema: {
        tags,
        summary: "Archives a release template: no new plan is made from it",
        params: TemplateParams,
        response: done,
      },
    },
    async (request) => {
      await library.archive(request.actor, request.params.templateId);
    },
  );
};

/** Plans on a flag's environment, their milestones and progressions, and safeguards. */
export const releasePlanRoutes: FastifyPluginAsyncTypebox<{
  plans: ReleasePlanService;
  safeguards: SafeguardService;
}> = async (app, { plans, safeguards }) => {
  const place = (params: EnvironmentParams) => ({
    projectId: params.projectId,
    featureName: params.featureName,
    environment: params.environment,
  });

  app.get(
    `${environment}/release-plans`,
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The flag's release plan in the environment (none or one)",
        params: EnvironmentParams,
        response: { 200: Type.Array(Plan) },
      },
    },
    (request) => plans.list(request.actor, request.params),
  );

  app.post(
    `${environment}/release-plans`,
    {
      config: { permission: "CREATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Adds a release plan made from a template; it serves nothing until a milestone starts",
        params: EnvironmentParams,
        body: AddPlan,
        response: { 200: Plan },
      },
    },
    (request) => plans.add(request.actor, request.params, request.body.templateId),
  );

  app.get(
    plan,
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One release plan", params: PlanParams, response: { 200: Plan } },
    },
    (request) => plans.get(request.actor, place(request.params), request.params.planId),
  );

  app.delete(
    plan,
    {
      config: { permission: "DELETE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Removes a release plan; the strategies it serves stay",
        params: PlanParams,
        response: done,
      },
    },
    async (request) => {
      await plans.remove(request.actor, place(request.params), request.params.planId);
    },
  );

  app.post(
    `${plan}/milestones/:milestoneId/start`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Starts a milestone: the environment's strategies become the milestone's",
        params: MilestoneParams,
        response: done,
      },
    },
    async (request) => {
      const { planId, milestoneId } = request.params;
      await plans.startMilestone(request.actor, place(request.params), milestoneId, planId);
    },
  );

  app.put(
    `${environment}/progressions/:sourceMilestoneId`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Sets when a milestone hands over to another, and to which",
        params: ProgressionParams,
        body: ProgressionInput,
        response: done,
      },
    },
    async (request) => {
      await plans.changeProgression(
        request.actor,
        place(request.params),
        request.params.sourceMilestoneId,
        request.body,
      );
    },
  );

  app.delete(
    `${environment}/progressions/:sourceMilestoneId`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Removes a milestone's progression",
        params: ProgressionParams,
        response: done,
      },
    },
    async (request) => {
      await plans.deleteProgression(request.actor, place(request.params), request.params.sourceMilestoneId);
    },
  );

  app.post(
    `${environment}/progressions/:planId/resume`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Resumes a plan's paused progression",
        params: Type.Object({ ...EnvironmentParams.properties, planId: Type.String() }),
        response: done,
      },
    },
    async (request) => {
      await plans.resume(request.actor, place(request.params), request.params.planId);
    },
  );

  app.put(
    `${plan}/safeguards`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: {
        tags,
        summary: "Makes or replaces the plan's safeguard: it pauses the progression",
        params: PlanParams,
        body: SafeguardInput,
        response: { 200: PlanSafeguard },
      },
    },
    (request) =>
      safeguards.putOnPlan(request.actor, place(request.params), request.params.planId, request.body),
  );

  app.delete(
    `${plan}/safeguards/:safeguardId`,
    {
      config: { permission: "UPDATE_FEATURE_STRATEGY" },
      schema: { tags, summary: "Removes the plan's safeguard", params: PlanSafeguardParams, response: done },
    },
    async (request) => {
      const { planId, safeguardId } = request.params;
      await safeguards.remove(request.actor, place(request.params), planId, safeguardId);
    },
  );

  app.get(
    `${environment}/safeguards`,
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The environment's safeguard (none or one)",
        params: EnvironmentParams,
        response: { 200: Type.Array(EnvironmentSafeguard) },
      },
    },
    (request) => safeguards.listOnEnvironment(request.actor, request.params),
  );

  app.put(
    `${environment}/safeguards`,
    {
      config: { permission: "UPDATE_FEATURE_ENVIRONMENT" },
      schema: {
        tags,
        summary: "Makes or replaces the environment's safeguard: it switches the flag off there",
        params: EnvironmentParams,
        body: SafeguardInput,
        response: { 200: EnvironmentSafeguard },
      },
    },
    (request) => safeguards.putOnEnvironment(request.actor, request.params, request.body),
  );

  app.delete(
    `${environment}/safeguards/:safeguardId`,
    {
      config: { permission: "UPDATE_FEATURE_ENVIRONMENT" },
      schema: {
        tags,
        summary: "Removes the environment's safeguard",
        params: EnvironmentSafeguardParams,
        response: done,
      },
    },
    async (request) => {
      await safeguards.remove(request.actor, place(request.params), null, request.params.safeguardId);
    },
  );
};
