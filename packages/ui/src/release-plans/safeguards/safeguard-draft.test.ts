import { describe, expect, it } from "vitest";
import { describeSafeguard, safeguardBody, safeguardDraftOf, safeguardRules } from "./safeguard-draft";

const stored = {
  impactMetric: {
    metricName: "unleash_counter_errors",
    timeRange: "day" as const,
    aggregationMode: "rps" as const,
    labelSelectors: { appName: ["shop", "till"] },
  },
  triggerCondition: { operator: ">" as const, threshold: 2.5 },
};

describe("safeguard drafts", () => {
  it("go back to the body they came from", () => {
    expect(safeguardBody(safeguardDraftOf(stored))).toEqual(stored);
  });

  it("start as a count above 0 over the last hour, with no label filters", () => {
    expect(safeguardDraftOf()).toEqual({
      metricName: "",
      aggregationMode: "count",
      timeRange: "hour",
      operator: ">",
      threshold: 0,
      labels: [],
    });
  });

  it("are sent with their labels trimmed and the threshold as a number", () => {
    const draft = {
      ...safeguardDraftOf(),
      metricName: " unleash_gauge_memory ",
      labels: [{ label: " pod ", values: ["a"] }],
    };
    expect(safeguardBody(draft).impactMetric).toMatchObject({
      metricName: "unleash_gauge_memory",
      labelSelectors: { pod: ["a"] },
    });
  });

  it("ask for a metric, a threshold, and label filters that are whole and not repeated", () => {
    const draft = {
      ...safeguardDraftOf(),
      labels: [
        { label: "pod", values: ["a"] },
        { label: "pod", values: [] },
      ],
    };
    expect(safeguardRules.metricName("")).toBe("Pick the metric to watch");
    expect(safeguardRules.threshold("")).toBe("Give the value that stops the release");
    expect(safeguardRules.threshold(0)).toBeNull();
    expect(safeguardRules.labels.label("pod", draft)).toBe("This label is filtered twice");
    expect(safeguardRules.labels.values([])).toBe("Pick at least one value");
  });
});

describe("describeSafeguard", () => {
  it("says what it watches and when it acts, in one line", () => {
    expect(describeSafeguard(stored)).toBe(
      `Rate per second of unleash_counter_errors above ${new Intl.NumberFormat().format(2.5)} (appName: shop or till)`,
    );
  });
});
