import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { EnvironmentService } from "./service.js";

const EnvironmentType = Type.String({ minLength: 1, maxLength: 100 });

const NewEnvironment = Type.Object({
  name: urlSafeName(),
  type: EnvironmentType,
  enabled: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
});

const UpdateEnvironment = Type.Object({ type: EnvironmentType, sortOrder: Type.Optional(Type.Integer()) });

const Name = Type.Object({ name: Type.String() });

export function environmentRoutes(app: App, environments: EnvironmentService): void {
  app.get("/api/admin/environments", async () => ({
    version: 1,
    environments: await environments.list(),
  }));

  app.get("/api/admin/environments/:name", { schema: { params: Name } }, (request) =>
    environments.get(request.params.name),
  );

  app.post("/api/admin/environments", { schema: { body: NewEnvironment } }, async (request, reply) => {
    const created = await environments.create(request.body, request.actor.name);
    return reply.status(201).header("location", `environments/${created.name}`).send(created);
  });

  app.put(
    "/api/admin/environments/update/:name",
    { schema: { params: Name, body: UpdateEnvironment } },
    (request) => environments.update(request.params.name, request.body, request.actor.name),
  );

  app.put(
    "/api/admin/environments/sort-order",
    { schema: { body: Type.Record(Type.String(), Type.Integer()) } },
    async (request, reply) => {
      await environments.setSortOrder(request.body, request.actor.name);
      return reply.status(200).send();
    },
  );

  for (const [path, enabled] of [
    ["on", true],
    ["off", false],
  ] as const) {
    app.post(
      `/api/admin/environments/:name/${path}`,
      { schema: { params: Name } },
      async (request, reply) => {
        await environments.setEnabled(request.params.name, enabled, request.actor.name);
        return reply.status(204).send();
      },
    );
  }

  app.delete("/api/admin/environments/:name", { schema: { params: Name } }, async (request, reply) => {
    await environments.remove(request.params.name, request.actor.name);
    return reply.status(200).send();
  });
}
