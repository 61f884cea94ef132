import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { ExportQuery, ExportResult, ImportBody, ValidationReport } from "./schemas.js";
import type { ImportExportService } from "./service.js";

const tags = ["Import/Export"];
// As the reference: any admin API caller; what the body asks is checked by the service.
const none = { permission: "NONE" } as const;

/**
 * Bodies are held to the service's limit, as the spec has it (100 kB unless BODY_LIMIT
 * raises it); `signalbox import` sends a larger file in parts.
 */
export const importExportRoutes: FastifyPluginAsyncTypebox<{ importExport: ImportExportService }> = async (
  app,
  { importExport },
) => {
  app.post(
    "/api/admin/features-batch/export",
    {
      config: none,
      schema: {
        tags,
        summary: "Exports flags from one environment: by name, by a tag's value, by project, or all of them",
        body: ExportQuery,
        response: { 200: ExportResult },
      },
    },
    async (request, reply) => {
      const result = await importExport.export(request.actor, request.body);
      if (request.body.downloadFile) {
        const day = new Date().toISOString().slice(0, 10);
        reply.header(
          "content-disposition",
          `attachment; filename="export-${request.body.environment}-${day}.json"`,
        );
      }
      return result;
    },
  );

  app.post(
    "/api/admin/features-batch/validate",
    {
      config: none,
      schema: {
        tags,
        summary:
          "Says what importing the file would do: errors, warnings and missing permissions; writes nothing",
        body: ImportBody,
        response: { 200: ValidationReport },
      },
    },
    (request) => importExport.validate(request.actor, request.body),
  );

  app.post(
    "/api/admin/features-batch/import",
    {
      config: none,
      schema: {
        tags,
        summary: "Imports a file into a project and environment, all of it or nothing",
        body: ImportBody,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      await importExport.import(request.actor, request.body);
    },
  );
};
