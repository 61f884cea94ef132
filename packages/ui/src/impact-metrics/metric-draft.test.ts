import { describe, expect, it } from "vitest";
import {
  aggregationsFor,
  describeFilters,
  describeMetric,
  metricBody,
  metricDraftOf,
  metricRules,
} from "./metric-draft";

describe("aggregationsFor", () => {
  it("offers what a metric's type can be aggregated by, and everything while it is not known", () => {
    expect(aggregationsFor("counter")).toEqual(["rps", "count"]);
    expect(aggregationsFor("gauge")).toEqual(["avg", "sum"]);
    expect(aggregationsFor("histogram")).toEqual(["p50", "p95", "p99"]);
    expect(aggregationsFor(undefined)).toHaveLength(7);
  });
});

describe("metric drafts", () => {
  const stored = {
    metricName: "unleash_histogram_latency",
    timeRange: "week" as const,
    aggregationMode: "p95" as const,
    labelSelectors: { appName: ["shop"], environment: ["production", "staging"] },
  };

  it("go back to the metric they came from", () => {
    expect(metricBody(metricDraftOf(stored))).toEqual(stored);
  });

  it("ask for the metric in the words given, and for label filters that are whole and not repeated", () => {
    const rules = metricRules("Pick the metric to chart");
    expect(rules.metricName(" ")).toBe("Pick the metric to chart");
    const labels = [
      { label: "pod", values: ["a"] },
      { label: " pod", values: [] },
    ];
    expect(rules.labels.label("pod", { labels })).toBe("This label is filtered twice");
    expect(rules.labels.label("", { labels })).toBe("Name the label");
    expect(rules.labels.values([])).toBe("Pick at least one value");
  });

  it("are said in a few words", () => {
    expect(describeMetric(stored)).toBe("95th percentile (p95) of unleash_histogram_latency");
    expect(describeFilters(stored.labelSelectors)).toBe("appName: shop; environment: production or staging");
    expect(describeFilters({})).toBe("");
  });
});
