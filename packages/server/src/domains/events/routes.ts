import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { EventListQuery, EventPage, EventSearch } from "./schemas.js";
import type { EventService } from "./service.js";

/** The event log's routes. */
export const eventRoutes: FastifyPluginAsyncTypebox<{ events: EventService }> = async (app, { events }) => {
  // Endpoint 16, newest first. `offset` is the event id to start listing from, as the spec
  // says (the reference skipped that many rows instead).
  app.post(
    "/api/admin/events/search",
    {
      schema: {
        tags: ["Events"],
        summary: "Search the event log, newest first",
        body: EventSearch,
        response: { 200: EventPage },
      },
      config: { permission: "NONE" },
    },
    async (request) => {
      const { limit = 100, offset, ...filters } = request.body;
      const startAt = offset || undefined;
      const found = await events.search(request.actor, { ...filters, limit, offset: 0, startAt });
      return { version: 1 as const, events: found.events, totalEvents: found.total };
    },
  );

  app.get(
    "/api/admin/events",
    {
      schema: {
        tags: ["Events"],
        summary: "List events, newest first",
        querystring: EventListQuery,
        response: { 200: EventPage },
      },
      config: { permission: "NONE" },
    },
    async (request) => {
      const { limit = 100, offset = 0, ...filters } = request.query;
      const found = await events.search(request.actor, { ...filters, limit, offset });
      return { version: 1 as const, events: found.events, totalEvents: found.total };
    },
  );
};
