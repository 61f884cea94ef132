import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { SegmentBody, SegmentId, SegmentList, SegmentUses, SegmentView } from "./schemas.js";
import type { SegmentService } from "./service.js";

const tags = ["Segments"];

export const segmentRoutes: FastifyPluginAsyncTypebox<{ segments: SegmentService }> = async (
  app,
  { segments },
) => {
  app.get(
    "/api/admin/segments",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "Every segment", response: { 200: SegmentList } },
    },
    async (request) => ({ segments: await segments.list(request.actor) }),
  );

  app.get(
    "/api/admin/segments/:id",
    {
      config: { permission: "NONE" },
      schema: { tags, summary: "One segment", params: SegmentId, response: { 200: SegmentView } },
    },
    (request) => segments.get(request.actor, request.params.id),
  );

  app.get(
    "/api/admin/segments/strategies/:id",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The strategies that use a segment",
        params: SegmentId,
        response: { 200: SegmentUses },
      },
    },
    async (request) => ({ strategies: await segments.strategiesOf(request.actor, request.params.id) }),
  );

  app.post(
    "/api/admin/segments",
    {
      config: { permission: "CREATE_SEGMENT" },
      schema: { tags, summary: "Creates a segment", body: SegmentBody, response: { 201: SegmentView } },
    },
    async (request, reply) => {
      const created = await segments.create(request.actor, request.body);
      return reply.status(201).header("location", `segments/${created.id}`).send(created);
    },
  );

  app.put(
    "/api/admin/segments/:id",
    {
      config: { permission: "UPDATE_SEGMENT" },
      schema: {
        tags,
        summary: "Replaces a segment",
        params: SegmentId,
        body: SegmentBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await segments.update(request.actor, request.params.id, request.body);
      reply.status(204);
    },
  );

  app.delete(
    "/api/admin/segments/:id",
    {
      config: { permission: "DELETE_SEGMENT" },
      schema: {
        tags,
        summary: "Deletes an unused segment",
        params: SegmentId,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await segments.remove(request.actor, request.params.id);
      reply.status(204);
    },
  );
};
