import { MetricChart } from "../../impact-metrics/metric-chart";
import type { Safeguard } from "../queries";

const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 });

/**
 * The safeguard's metric over its chart range, aggregated as it is, with its threshold drawn
 * across: how close the release is to being stopped. A sentence says the same for those who
 * do not see the chart.
 */
export function SafeguardChart({ safeguard }: { safeguard: Safeguard }) {
  const { impactMetric, triggerCondition } = safeguard;
  const threshold = `${triggerCondition.operator} ${number.format(triggerCondition.threshold)}`;
  return (
    <MetricChart
      metric={impactMetric}
      loadingLabel="Loading the safeguard's metric"
      reference={{
        y: triggerCondition.threshold,
        label: `Threshold ${threshold}`,
        sentence: `The safeguard acts at ${threshold}.`,
      }}
    />
  );
}
