import {
  describeFilters,
  describeMetric,
  type MetricDraft,
  metricBody,
  metricDraftOf,
  metricRules,
} from "../../impact-metrics/metric-draft";
import type { SafeguardInput } from "../queries";

export type Operator = SafeguardInput["triggerCondition"]["operator"];

export const OPERATORS: Record<Operator, string> = { ">": "Above", "<": "Below" };

/** A safeguard being edited: the metric it watches, and when it acts. */
export type SafeguardDraft = MetricDraft & {
  operator: Operator;
  threshold: number | "";
};

/** A safeguard as its form starts: a stored one, or one that stops at the first error counted. */
export function safeguardDraftOf(
  safeguard?: Pick<SafeguardInput, "impactMetric" | "triggerCondition">,
): SafeguardDraft {
  if (!safeguard) return { ...metricDraftOf(), operator: ">", threshold: 0 };
  const { impactMetric, triggerCondition } = safeguard;
  return {
    ...metricDraftOf(impactMetric),
    operator: triggerCondition.operator,
    threshold: triggerCondition.threshold,
  };
}

/** The rules of the form, by field, as @mantine/form applies them. */
export const safeguardRules = {
  ...metricRules("Pick the metric to watch"),
  threshold: (threshold: number | "") => (threshold === "" ? "Give the value that stops the release" : null),
};

/** The safeguard as PUT takes it; only once the rules pass. */
export function safeguardBody(draft: SafeguardDraft): SafeguardInput {
  return {
    impactMetric: metricBody(draft),
    triggerCondition: { operator: draft.operator, threshold: Number(draft.threshold) },
  };
}

const number = new Intl.NumberFormat();

/** What a safeguard watches, in one line: "count of unleash_counter_errors above 0 (appName: shop)". */
export function describeSafeguard(
  safeguard: Pick<SafeguardInput, "impactMetric" | "triggerCondition">,
): string {
  const { impactMetric, triggerCondition } = safeguard;
  const filters = describeFilters(impactMetric.labelSelectors);
  const operator = OPERATORS[triggerCondition.operator]?.toLowerCase() ?? triggerCondition.operator;
  return `${describeMetric(impactMetric)} ${operator} ${number.format(triggerCondition.threshold)}${filters ? ` (${filters})` : ""}`;
}
