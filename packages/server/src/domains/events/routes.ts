import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import type { EventService } from "./service.js";

const SearchBody = Type.Object({
  type: Type.Optional(Type.String()),
  project: Type.Optional(Type.String()),
  feature: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

const ListQuery = Type.Object({
  type: Type.Optional(Type.String()),
  project: Type.Optional(Type.String()),
  feature: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export function eventRoutes(app: App, events: EventService): void {
  // Endpoint 16. `offset` skips that many of the newest events, as the reference did.
  app.post("/api/admin/events/search", { schema: { body: SearchBody } }, async (request) => {
    const { limit = 100, offset = 0, ...filters } = request.body;
    const { events: found, total } = await events.search({ ...filters, limit, offset });
    return { version: 1, events: found, totalEvents: total };
  });

  app.get("/api/admin/events", { schema: { querystring: ListQuery } }, async (request) => {
    const { limit = 100, offset = 0, ...filters } = request.query;
    const { events: found, total } = await events.search({ ...filters, limit, offset });
    return { version: 1, events: found, totalEvents: total };
  });
}
