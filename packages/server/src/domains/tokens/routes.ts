import { invalidField } from "@signalbox/protocol";
import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import type { TokenService } from "./service.js";

const CreateToken = Type.Object({
  tokenName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  /** The reference's older name for tokenName. */
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  type: Type.String(),
  environment: Type.Optional(Type.String({ minLength: 1 })),
  project: Type.Optional(Type.String({ minLength: 1 })),
  projects: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  expiresAt: Type.Optional(Type.Union([Type.String({ format: "date-time" }), Type.Null()])),
});

const UpdateToken = Type.Object({ expiresAt: Type.String({ format: "date-time" }) });

export function tokenRoutes(app: App, tokens: TokenService): void {
  app.get("/api/admin/api-tokens", async () => ({ tokens: await tokens.list() }));

  app.post("/api/admin/api-tokens", { schema: { body: CreateToken } }, async (request, reply) => {
    const body = request.body;
    const tokenName = body.tokenName ?? body.username;
    if (!tokenName) throw invalidField("tokenName", "tokenName is required");
    const projects = body.projects ?? (body.project ? [body.project] : undefined);
    const created = await tokens.create({ ...body, tokenName, projects }, request.actor.name);
    return reply.status(201).header("location", `api-tokens/${created.id}`).send(created);
  });

  app.put(
    "/api/admin/api-tokens/:token",
    { schema: { params: Type.Object({ token: Type.String() }), body: UpdateToken } },
    async (request) => {
      return tokens.updateExpiry(request.params.token, request.body.expiresAt, request.actor.name);
    },
  );

  app.delete(
    "/api/admin/api-tokens/:token",
    { schema: { params: Type.Object({ token: Type.String() }) } },
    async (request, reply) => {
      await tokens.remove(request.params.token, request.actor.name);
      return reply.status(200).send();
    },
  );
}
