import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  Addon,
  AddonId,
  AddonInput,
  AddonList,
  IntegrationEvent,
  IntegrationEventList,
  IntegrationEventQuery,
} from "./schemas.js";
import type { AddonService } from "./service.js";

const tags = ["Addons"];

/** Addons (integrations) and their delivery logs, under /api/admin/addons. */
export const addonRoutes: FastifyPluginAsyncTypebox<{ addons: AddonService }> = async (app, { addons }) => {
  app.get(
    "/api/admin/addons",
    {
      schema: {
        tags,
        summary: "List the addons, and the providers they can use",
        response: { 200: AddonList },
      },
      config: { permission: "NONE" },
    },
    (request) => addons.list(request.actor),
  );

  app.post(
    "/api/admin/addons",
    {
      schema: { tags, summary: "Create an addon", body: AddonInput, response: { 201: Addon } },
      config: { permission: "CREATE_ADDON" },
    },
    async (request, reply) => {
      const created = await addons.create(request.actor, request.body);
      return reply.status(201).header("location", `addons/${created.id}`).send(created);
    },
  );

  app.get(
    "/api/admin/addons/:id",
    {
      schema: { tags, summary: "Get an addon", params: AddonId, response: { 200: Addon } },
      config: { permission: "NONE" },
    },
    (request) => addons.get(request.actor, request.params.id),
  );

  app.put(
    "/api/admin/addons/:id",
    {
      schema: {
        tags,
        summary: "Change an addon (endpoint 3)",
        description:
          "Fields sent replace the stored ones, fields absent are left as they are, null empties a list " +
          '(a null description stores ""). A sensitive parameter sent as ***** keeps its stored value while ' +
          "the addon sends where it did; a changed destination (a URL parameter, or the provider) drops " +
          "every stored sensitive parameter not sent again in clear.",
        params: AddonId,
        body: AddonInput,
        response: { 200: Addon },
      },
      config: { permission: "UPDATE_ADDON" },
    },
    (request) => addons.update(request.actor, request.params.id, request.body),
  );

  app.delete(
    "/api/admin/addons/:id",
    {
      schema: { tags, summary: "Delete an addon", params: AddonId, response: { 200: Type.Null() } },
      config: { permission: "DELETE_ADDON" },
    },
    async (request) => {
      await addons.remove(request.actor, request.params.id);
    },
  );

  app.post(
    "/api/admin/addons/:id/test",
    {
      schema: {
        tags,
        summary: "Send the addon a test event now",
        description:
          "A sample `feature-created` event (or the addon's first event type) for the flag " +
          "signalbox-test-event, marked `test: true` in its data and not written to the event log, " +
          "delivered at once with one attempt, whether the addon is enabled or not. Answers the " +
          "delivery log entry it made, delivered or failed.",
        params: AddonId,
        response: { 200: IntegrationEvent },
      },
      config: { permission: "UPDATE_ADDON" },
    },
    (request) => addons.test(request.actor, request.params.id),
  );

  app.get(
    "/api/admin/addons/:id/events",
    {
      schema: {
        tags,
        summary: "What the addon delivered, newest first, with each attempt",
        params: AddonId,
        querystring: IntegrationEventQuery,
        response: { 200: IntegrationEventList },
      },
      config: { permission: "NONE" },
    },
    async (request) => ({
      integrationEvents: await addons.deliveries(request.actor, request.params.id, {
        limit: request.query.limit ?? 50,
        offset: request.query.offset ?? 0,
      }),
    }),
  );
};
