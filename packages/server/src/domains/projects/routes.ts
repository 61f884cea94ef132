import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { urlSafeName } from "../../shared/schemas.js";
import type { ProjectService } from "./service.js";

const Mode = Type.Enum(["open", "protected", "private"]);
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Stickiness = Type.Optional(Type.String({ minLength: 1, maxLength: 100 }));
const NullableText = Type.Union([Type.String({ minLength: 1 }), Type.Null()]);

const NewProject = Type.Object({
  id: urlSafeName(),
  name: Name,
  description: Description,
  mode: Type.Optional(Mode),
  defaultStickiness: Stickiness,
  environments: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
});

const ProjectUpdate = Type.Object({
  name: Name,
  description: Description,
  mode: Type.Optional(Mode),
  defaultStickiness: Stickiness,
  featureLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
});

const Settings = Type.Object({
  mode: Type.Optional(Mode),
  featureNaming: Type.Optional(
    Type.Object({
      pattern: NullableText,
      example: Type.Optional(NullableText),
      description: Type.Optional(NullableText),
    }),
  ),
});

const ListQuery = Type.Object({ archived: Type.Optional(Type.Boolean()) });
const ProjectId = Type.Object({ projectId: Type.String() });
const ProjectEnvironment = Type.Object({ projectId: Type.String(), environment: Type.String() });

export function projectRoutes(app: App, projects: ProjectService): void {
  // Endpoint 7.
  app.get("/api/admin/projects", { schema: { querystring: ListQuery } }, async (request) => ({
    version: 1,
    projects: await projects.list(request.query.archived ?? false),
  }));

  app.get("/api/admin/projects/:projectId", { schema: { params: ProjectId } }, (request) =>
    projects.get(request.params.projectId),
  );

  app.post("/api/admin/projects", { schema: { body: NewProject } }, async (request, reply) => {
    const created = await projects.create(request.body, request.actor.name);
    return reply.status(201).header("location", `projects/${created.id}`).send(created);
  });

  app.put(
    "/api/admin/projects/:projectId",
    { schema: { params: ProjectId, body: ProjectUpdate } },
    async (request, reply) => {
      await projects.update(request.params.projectId, request.body, request.actor.name);
      return reply.status(200).send();
    },
  );

  // Endpoint 12.
  app.put(
    "/api/admin/projects/:projectId/settings",
    { schema: { params: ProjectId, body: Settings } },
    async (request, reply) => {
      const { mode, featureNaming } = request.body;
      const naming = featureNaming && {
        pattern: featureNaming.pattern,
        example: featureNaming.example ?? null,
        description: featureNaming.description ?? null,
      };
      await projects.updateSettings(
        request.params.projectId,
        { mode, featureNaming: naming },
        request.actor.name,
      );
      return reply.status(200).send();
    },
  );

  // The reference's paths: `/projects/:id/archive` archives a project's flags instead.
  for (const [path, act] of [
    ["archive", (id: string, by: string) => projects.archive(id, by)],
    ["revive", (id: string, by: string) => projects.revive(id, by)],
  ] as const) {
    app.post(
      `/api/admin/projects/${path}/:projectId`,
      { schema: { params: ProjectId } },
      async (request, reply) => {
        await act(request.params.projectId, request.actor.name);
        return reply.status(200).send();
      },
    );
  }

  app.delete("/api/admin/projects/:projectId", { schema: { params: ProjectId } }, async (request, reply) => {
    await projects.remove(request.params.projectId, request.actor.name);
    return reply.status(200).send();
  });

  app.post(
    "/api/admin/projects/:projectId/environments",
    { schema: { params: ProjectId, body: Type.Object({ environment: Type.String({ minLength: 1 }) }) } },
    async (request, reply) => {
      await projects.addEnvironment(request.params.projectId, request.body.environment, request.actor.name);
      return reply.status(200).send();
    },
  );

  app.delete(
    "/api/admin/projects/:projectId/environments/:environment",
    { schema: { params: ProjectEnvironment } },
    async (request, reply) => {
      const { projectId, environment } = request.params;
      await projects.removeEnvironment(projectId, environment, request.actor.name);
      return reply.status(200).send();
    },
  );
}
