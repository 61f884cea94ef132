import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { TagTypeService } from "./service.js";

const Changes = {
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  icon: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

// The reference's tag type names: URL-safe, 2 to 50 characters.
const NewTagType = Type.Object({ name: urlSafeName({ minLength: 2, maxLength: 50 }), ...Changes });

const Name = Type.Object({ name: Type.String() });

export function tagTypeRoutes(app: App, tagTypes: TagTypeService): void {
  app.get("/api/admin/tag-types", async () => ({ version: 1, tagTypes: await tagTypes.list() }));

  app.get("/api/admin/tag-types/:name", { schema: { params: Name } }, async (request) => ({
    version: 1,
    tagType: await tagTypes.get(request.params.name),
  }));

  app.post("/api/admin/tag-types", { schema: { body: NewTagType } }, async (request, reply) => {
    const created = await tagTypes.create(request.body, request.actor.name);
    return reply.status(201).header("location", `tag-types/${created.name}`).send(created);
  });

  app.put(
    "/api/admin/tag-types/:name",
    { schema: { params: Name, body: Type.Object(Changes) } },
    async (request, reply) => {
      await tagTypes.update(request.params.name, request.body, request.actor.name);
      return reply.status(200).send();
    },
  );

  app.delete("/api/admin/tag-types/:name", { schema: { params: Name } }, async (request, reply) => {
    await tagTypes.remove(request.params.name, request.actor.name);
    return reply.status(200).send();
  });

  app.post("/api/admin/tag-types/validate", { schema: { body: NewTagType } }, async (request) => {
    await tagTypes.validateName(request.body.name);
    return { valid: true, tagType: { description: null, icon: null, ...request.body } };
  });
}
