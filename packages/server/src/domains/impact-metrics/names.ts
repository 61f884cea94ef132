import type { ImpactLabels, ImpactMetricType } from "@signalbox/protocol";

/** Prometheus' characters, as the reference makes names and label names of what SDKs send. */
export const sanitize = (name: string): string => name.replace(/[^a-zA-Z0-9_]/g, "_");

/** A name or label name must begin with a letter or `_`; the reference drops any other. */
export const isValidName = (name: string): boolean => /^[a-zA-Z_]/.test(name);

/** The name the reference's admin UI and safeguards use for a metric: `unleash_<type>_<name>`. */
export const seriesName = (type: ImpactMetricType, name: string): string => `unleash_${type}_${name}`;

const PREFIXED = /^unleash_(counter|gauge|histogram)_(.+)$/;

/** The type and name a `unleash_<type>_<name>` stands for, if it has that form. */
export function parseSeriesName(metricName: string): { type: ImpactMetricType; name: string } | undefined {
  const match = PREFIXED.exec(metricName);
  return match ? { type: match[1] as ImpactMetricType, name: match[2]! } : undefined;
}

/** Where a sample came from, and who sent it when it does not say. */
export interface Origin {
  /** The token's environment; `*` (no one environment) adds none. */
  environment: string;
  appName: string;
}

/**
 * A sample's labels as a series is stored with them: names sanitised (those that cannot be
 * made valid dropped), `origin` ("sdk" unless the sample names its own, as a proxy's do) and
 * `metric_type` as the reference adds them, and the report's environment and application
 * where the SDK did not say (its zero sample, sent when nothing happened, says neither).
 */
export function seriesLabels(labels: ImpactLabels, type: ImpactMetricType, origin: Origin): ImpactLabels {
  const result: ImpactLabels = { origin: labels.origin || "sdk" };
  for (const [key, value] of Object.entries(labels)) {
    const name = sanitize(key);
    if (isValidName(name) && name !== "origin") result[name] = value;
  }
  result.metric_type = type;
  if (result.environment === undefined && origin.environment !== "*") result.environment = origin.environment;
  if (result.appName === undefined) result.appName = origin.appName;
  return result;
}

/** Whether labels satisfy selectors: each named label is one of its values; `*` or no values is any. */
export function matches(labels: ImpactLabels, selectors: Record<string, string[]>): boolean {
  for (const [label, values] of Object.entries(selectors)) {
    if (values.length === 0 || values.includes("*")) continue;
    const value = labels[label];
    if (value === undefined || !values.includes(value)) return false;
  }
  return true;
}
