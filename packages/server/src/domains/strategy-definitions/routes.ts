import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { StrategyDefinitionService } from "./service.js";

const Parameter = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Enum(["string", "percentage", "list", "number", "boolean"]),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
});

const Definition = {
  displayName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  parameters: Type.Optional(Type.Array(Parameter)),
};

const Name = Type.Object({ name: Type.String() });

export function strategyDefinitionRoutes(app: App, definitions: StrategyDefinitionService): void {
  app.get("/api/admin/strategies", async () => ({ version: 1, strategies: await definitions.list() }));

  app.get("/api/admin/strategies/:name", { schema: { params: Name } }, (request) =>
    definitions.get(request.params.name),
  );

  app.post(
    "/api/admin/strategies",
    { schema: { body: Type.Object({ name: urlSafeName(), ...Definition }) } },
    async (request, reply) => {
      const created = await definitions.create(request.body, request.actor.name);
      return reply.status(201).header("location", `strategies/${created.name}`).send(created);
    },
  );

  // Clients of the reference send the name in the body as well; the path decides.
  app.put(
    "/api/admin/strategies/:name",
    { schema: { params: Name, body: Type.Object({ name: Type.Optional(Type.String()), ...Definition }) } },
    async (request, reply) => {
      await definitions.update(request.params.name, request.body, request.actor.name);
      return reply.status(200).send();
    },
  );

  for (const [path, deprecated] of [
    ["deprecate", true],
    ["reactivate", false],
  ] as const) {
    app.post(`/api/admin/strategies/:name/${path}`, { schema: { params: Name } }, async (request, reply) => {
      await definitions.setDeprecated(request.params.name, deprecated, request.actor.name);
      return reply.status(200).send();
    });
  }
}
