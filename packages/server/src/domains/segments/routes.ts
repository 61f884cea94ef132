import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { Constraint } from "../../shared/schemas.js";
import type { SegmentService } from "./service.js";

const SegmentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  project: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  constraints: Type.Array(Constraint),
});

const Id = Type.Object({ id: Type.Integer() });

export function segmentRoutes(app: App, segments: SegmentService): void {
  app.get("/api/admin/segments", async () => ({ segments: await segments.list() }));

  app.get("/api/admin/segments/:id", { schema: { params: Id } }, (request) =>
    segments.get(request.params.id),
  );

  app.get("/api/admin/segments/strategies/:id", { schema: { params: Id } }, async (request) => ({
    strategies: await segments.strategiesOf(request.params.id),
  }));

  app.post("/api/admin/segments", { schema: { body: SegmentBody } }, async (request, reply) => {
    const created = await segments.create(request.body, request.actor.name);
    return reply.status(201).header("location", `segments/${created.id}`).send(created);
  });

  app.put(
    "/api/admin/segments/:id",
    { schema: { params: Id, body: SegmentBody } },
    async (request, reply) => {
      await segments.update(request.params.id, request.body, request.actor.name);
      return reply.status(204).send();
    },
  );

  app.delete("/api/admin/segments/:id", { schema: { params: Id } }, async (request, reply) => {
    await segments.remove(request.params.id, request.actor.name);
    return reply.status(204).send();
  });
}
