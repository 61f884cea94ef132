import { type Static, Type } from "typebox";

// The reference's open-source build has no admin routes for impact metrics: these shapes
// follow its OpenAPI models as its admin UI reads them (frontend/src/openapi/models:
// availableImpactMetricsSchema, impactMetricsDataSchema, impactMetricsConfigSchema,
// createImpactMetricsConfigSchema, impactMetricsConfigListSchema).

export const AGGREGATION_MODES = ["rps", "count", "avg", "sum", "p50", "p95", "p99"] as const;
export type AggregationMode = (typeof AGGREGATION_MODES)[number];
export const TIME_RANGES = ["hour", "day", "week", "month"] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

const AggregationModeSchema = Type.Enum(AGGREGATION_MODES, {
  description: "rps or count for counters, avg or sum for gauges, p50, p95 or p99 for histograms",
});
const TimeRangeSchema = Type.Enum(TIME_RANGES);
const MetricType = Type.Enum(["counter", "gauge", "histogram"]);
const Source = Type.Enum(["internal", "external"], {
  description: "internal: what SDKs reported to this service; external sources are not supported",
});
const LabelSelectors = Type.Record(Type.String(), Type.Array(Type.String()), {
  description: "Label values to keep, by label; `*` or no values keeps any",
});
const LabelValues = Type.Record(Type.String(), Type.Array(Type.String()), {
  description: "The values seen of each label, by label",
});

export const ImpactMetricsMetadata = Type.Object({
  metrics: Type.Array(
    Type.Object({
      name: Type.String({ description: "The name to query: unleash_<type>_<name>" }),
      displayName: Type.String({ description: "The name the SDK gave it (sanitised)" }),
      help: Type.String(),
      source: Source,
      type: MetricType,
      labels: LabelValues,
    }),
  ),
});
export type ImpactMetricsMetadata = Static<typeof ImpactMetricsMetadata>;

export const ImpactMetricsQuery = Type.Object({
  metricName: Type.Optional(
    Type.String({ minLength: 1, description: "unleash_<type>_<name>, or the metric's own name" }),
  ),
  series: Type.Optional(
    Type.String({ minLength: 1, description: "The reference's older name for metricName" }),
  ),
  range: Type.Optional(TimeRangeSchema),
  aggregationMode: Type.Optional(AggregationModeSchema),
  labels: Type.Optional(
    Type.String({ description: "Label selectors as JSON: an object of label names to arrays of values" }),
  ),
  mode: Type.Optional(
    Type.Enum(["display", "edit"], {
      description: "edit (the default) also answers the metric's labels and their values; display does not",
    }),
  ),
  source: Type.Optional(Source),
});

export const ImpactMetricsData = Type.Object({
  series: Type.Array(
    Type.Object({
      metric: Type.Record(Type.String(), Type.String(), { description: "The labels of this series" }),
      data: Type.Array(Type.Array(Type.Union([Type.Number(), Type.String()])), {
        description: "[timestamp in epoch seconds, value as text], one per step with data, oldest first",
      }),
    }),
  ),
  start: Type.String({ description: "The first step, in epoch seconds" }),
  end: Type.String({ description: "The end of the range (now), in epoch seconds" }),
  step: Type.String({ description: "The width of a step: 1m, 15m, 1h or 4h" }),
  labels: LabelValues,
  debug: Type.Optional(
    Type.Object({
      metricType: Type.Optional(Type.String()),
      isTruncated: Type.Optional(Type.Boolean()),
      query: Type.Optional(Type.String()),
    }),
  ),
});
export type ImpactMetricsData = Static<typeof ImpactMetricsData>;

const configFields = {
  metricName: Type.String({ minLength: 1, description: "unleash_<type>_<name>" }),
  timeRange: TimeRangeSchema,
  aggregationMode: AggregationModeSchema,
  labelSelectors: LabelSelectors,
  title: Type.Optional(Type.String({ description: "The chart's title" })),
  source: Type.Optional(Source),
};

export const ImpactMetricsConfigInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Replaces the flag's chart of this id; a new one when left out",
      }),
    ),
    ...configFields,
    yAxisMin: Type.Optional(Type.Enum(["auto", "zero"], { default: "auto" })),
  },
  { additionalProperties: true },
);
export type ImpactMetricsConfigInput = Static<typeof ImpactMetricsConfigInput>;

export const ImpactMetricsConfig = Type.Object({
  id: Type.String(),
  ...configFields,
  displayName: Type.String({ description: "The metric's own name" }),
  yAxisMin: Type.Enum(["auto", "zero"]),
  step: Type.String({ description: "The width of the chart's steps for its time range" }),
});
export type ImpactMetricsConfig = Static<typeof ImpactMetricsConfig>;

export const ImpactMetricsConfigList = Type.Object({ configs: Type.Array(ImpactMetricsConfig) });

export const ConfigParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  id: Type.String(),
});
