import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import {
  ContextField,
  ContextFieldName,
  ContextFieldNameCheck,
  ContextFieldUpdate,
  LegalValue,
  LegalValuePath,
  NewContextField,
} from "./schemas.js";
import type { ContextFieldService } from "./service.js";

const tags = ["Context"];

/** The fields of the evaluation context strategies may constrain on, under /api/admin/context. */
export const contextFieldRoutes: FastifyPluginAsyncTypebox<{ fields: ContextFieldService }> = async (
  app,
  { fields },
) => {
  app.get(
    "/api/admin/context",
    {
      schema: { tags, summary: "List the context fields", response: { 200: Type.Array(ContextField) } },
      config: { permission: "NONE" },
    },
    (request) => fields.list(request.actor),
  );

  app.get(
    "/api/admin/context/:name",
    {
      schema: {
        tags,
        summary: "Get a context field",
        params: ContextFieldName,
        response: { 200: ContextField },
      },
      config: { permission: "NONE" },
    },
    (request) => fields.get(request.actor, request.params.name),
  );

  app.post(
    "/api/admin/context",
    {
      schema: {
        tags,
        summary: "Create a context field",
        body: NewContextField,
        response: { 201: ContextField },
      },
      config: { permission: "CREATE_CONTEXT_FIELD" },
    },
    async (request, reply) => {
      const created = await fields.create(request.actor, request.body);
      return reply.status(201).header("location", `context/${created.name}`).send(created);
    },
  );

  app.put(
    "/api/admin/context/:name",
    {
      schema: {
        tags,
        summary: "Change a context field",
        params: ContextFieldName,
        body: ContextFieldUpdate,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_CONTEXT_FIELD" },
    },
    async (request) => {
      await fields.update(request.actor, request.params.name, request.body);
    },
  );

  app.delete(
    "/api/admin/context/:name",
    {
      schema: {
        tags,
        summary: "Delete a context field no constraint uses",
        params: ContextFieldName,
        response: { 200: Type.Null() },
      },
      config: { permission: "DELETE_CONTEXT_FIELD" },
    },
    async (request) => {
      await fields.remove(request.actor, request.params.name);
    },
  );

  app.post(
    "/api/admin/context/validate",
    {
      schema: {
        tags,
        summary: "Check that a new context field could take a name",
        body: ContextFieldNameCheck,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_CONTEXT_FIELD" },
    },
    async (request) => {
      await fields.validateName(request.actor, request.body.name);
    },
  );

  for (const method of ["POST", "PUT"] as const) {
    app.route({
      method,
      url: "/api/admin/context/:name/legal-values",
      schema: {
        tags,
        summary: "Add a legal value, or replace the one with the same value",
        params: ContextFieldName,
        body: LegalValue,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_CONTEXT_FIELD" },
      handler: async (request) => {
        await fields.upsertLegalValue(request.actor, request.params.name, request.body);
      },
    });
  }

  app.delete(
    "/api/admin/context/:name/legal-values/:value",
    {
      schema: {
        tags,
        summary: "Remove one legal value",
        params: LegalValuePath,
        response: { 200: Type.Null() },
      },
      config: { permission: "UPDATE_CONTEXT_FIELD" },
    },
    async (request) => {
      await fields.removeLegalValue(request.actor, request.params.name, request.params.value);
    },
  );
};
