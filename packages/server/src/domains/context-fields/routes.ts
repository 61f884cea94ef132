import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { ContextFieldService } from "./service.js";

const LegalValue = Type.Object({
  value: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String()),
});

const Changes = {
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  stickiness: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
  legalValues: Type.Optional(Type.Array(LegalValue)),
};

const Name = Type.Object({ name: Type.String() });

export function contextFieldRoutes(app: App, fields: ContextFieldService): void {
  app.get("/api/admin/context", () => fields.list());

  app.get("/api/admin/context/:name", { schema: { params: Name } }, (request) =>
    fields.get(request.params.name),
  );

  app.post(
    "/api/admin/context",
    { schema: { body: Type.Object({ name: urlSafeName(), ...Changes }) } },
    async (request, reply) => {
      const created = await fields.create(request.body, request.actor.name);
      return reply.status(201).header("location", `context/${created.name}`).send(created);
    },
  );

  // The reference's clients send the whole field back, name included; the path names it.
  app.put(
    "/api/admin/context/:name",
    { schema: { params: Name, body: Type.Object({ name: Type.Optional(Type.String()), ...Changes }) } },
    async (request, reply) => {
      await fields.update(request.params.name, request.body, request.actor.name);
      return reply.status(200).send();
    },
  );

  app.delete("/api/admin/context/:name", { schema: { params: Name } }, async (request, reply) => {
    await fields.remove(request.params.name, request.actor.name);
    return reply.status(200).send();
  });

  app.post(
    "/api/admin/context/validate",
    { schema: { body: Type.Object({ name: urlSafeName() }) } },
    async (request, reply) => {
      await fields.validateName(request.body.name);
      return reply.status(200).send();
    },
  );

  for (const method of ["POST", "PUT"] as const) {
    app.route({
      method,
      url: "/api/admin/context/:name/legal-values",
      schema: { params: Name, body: LegalValue },
      handler: async (request, reply) => {
        await fields.upsertLegalValue(request.params.name, request.body, request.actor.name);
        return reply.status(200).send();
      },
    });
  }

  app.delete(
    "/api/admin/context/:name/legal-values/:value",
    { schema: { params: Type.Object({ name: Type.String(), value: Type.String() }) } },
    async (request, reply) => {
      await fields.removeLegalValue(request.params.name, request.params.value, request.actor.name);
      return reply.status(200).send();
    },
  );
}
