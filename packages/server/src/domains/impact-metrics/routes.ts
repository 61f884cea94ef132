import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { invalidField } from "@signalbox/protocol";
import { Type } from "typebox";
import { FeatureParams } from "../features/params.js";
import {
  ConfigParams,
  ImpactMetricsConfig,
  ImpactMetricsConfigInput,
  ImpactMetricsConfigList,
  ImpactMetricsData,
  ImpactMetricsMetadata,
  ImpactMetricsQuery,
} from "./schemas.js";
import type { ImpactMetricsService } from "./service.js";

const tags = ["Impact metrics"];

/** `labels` is JSON in the query string: an object of label names to arrays of values. */
function labelSelectors(text: string | undefined): Record<string, string[]> {
  if (text === undefined || text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidField("labels", "labels must be JSON: an object of label names to arrays of values");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalidField("labels", "labels must be an object of label names to arrays of values");
  }
  const selectors: Record<string, string[]> = {};
  for (const [label, values] of Object.entries(parsed)) {
    const list = Array.isArray(values) ? values : [values];
    if (!list.every((value) => typeof value === "string")) {
      throw invalidField("labels", `labels.${label} must be an array of strings`);
    }
    selectors[label] = list;
  }
  return selectors;
}

/** What SDKs reported, for charts: the metrics there are and a metric's values over time. */
export const impactMetricRoutes: FastifyPluginAsyncTypebox<{ impactMetrics: ImpactMetricsService }> = async (
  app,
  { impactMetrics },
) => {
  app.get(
    "/api/admin/impact-metrics/metadata",
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The impact metrics SDKs reported, with their labels and the values seen of each",
        response: { 200: ImpactMetricsMetadata },
      },
    },
    (request) => impactMetrics.metadata(request.actor),
  );

  // The reference's UI asks with a trailing slash; scripts may leave it out.
  for (const url of ["/api/admin/impact-metrics/", "/api/admin/impact-metrics"]) {
    app.get(
      url,
      {
        config: { permission: "NONE" },
        schema: {
          tags,
          summary:
            "An impact metric's values over a time range, aggregated over the series that match the labels",
          description:
            "One value per step (1m for an hour, 15m for a day, 1h for a week, 4h for a month): rps and count are a counter's increase (a histogram's observations) in the step, per second or in all; avg and sum are over each matching gauge series' last value in the step; p50, p95 and p99 are quantiles of the histograms' buckets added up. A metric no SDK reported has no series.",
          querystring: ImpactMetricsQuery,
          response: { 200: ImpactMetricsData },
        },
      },
      (request) => {
        const {
          metricName = request.query.series,
          range = "hour",
          aggregationMode,
          labels,
          mode,
          source,
        } = request.query;
        if (metricName === undefined) throw invalidField("metricName", "metricName is required");
        if (source === "external") {
          throw invalidField(
            "source",
            "Only internal impact metrics (what SDKs report to this service) are supported",
          );
        }
        return impactMetrics.series({
          metricName,
          range,
          aggregationMode,
          labelSelectors: labelSelectors(labels),
          withLabels: mode !== "display",
        });
      },
    );
  }
};

/** The charts of impact metrics an admin puts on a flag. */
export const flagImpactMetricRoutes: FastifyPluginAsyncTypebox<{
  impactMetrics: ImpactMetricsService;
}> = async (app, { impactMetrics }) => {
  const base = "/api/admin/projects/:projectId/features/:featureName/impact-metrics/config";

  app.get(
    base,
    {
      config: { permission: "NONE" },
      schema: {
        tags,
        summary: "The impact metric charts on a flag",
        params: FeatureParams,
        response: { 200: ImpactMetricsConfigList },
      },
    },
    async (request) => {
      const { projectId, featureName } = request.params;
      return { configs: await impactMetrics.configs(request.actor, projectId, featureName) };
    },
  );

  // The reference's UI creates with POST; PUT, as the issue names it, does the same.
  for (const method of ["PUT", "POST"] as const) {
    app.route({
      method,
      url: base,
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Puts an impact metric chart on a flag, or changes the flag's chart of the id given",
        params: FeatureParams,
        body: ImpactMetricsConfigInput,
        response: { 200: ImpactMetricsConfig },
      },
      handler: (request) => {
        const { projectId, featureName } = request.params;
        return impactMetrics.saveConfig(request.actor, projectId, featureName, request.body);
      },
    });
  }

  app.delete(
    `${base}/:id`,
    {
      config: { permission: "UPDATE_FEATURE" },
      schema: {
        tags,
        summary: "Takes an impact metric chart off a flag (answered 200 whether it was there or not)",
        params: ConfigParams,
        response: { 200: Type.Null() },
      },
    },
    async (request) => {
      const { projectId, featureName, id } = request.params;
      await impactMetrics.deleteConfig(request.actor, projectId, featureName, id);
    },
  );
};
