import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import { renderWithProviders } from "../../../test/render";
import { SafeguardModal } from "./safeguard-modal";

describe("SafeguardModal", () => {
  it("picks a reported metric, offers the aggregations of its type, filters by label, and hands on the safeguard", async () => {
    service.serve({
      "GET /api/admin/impact-metrics/metadata": {
        metrics: [
          {
            name: "unleash_counter_errors",
            displayName: "errors",
            help: "Checkout errors",
            source: "internal",
            type: "counter",
            labels: { appName: ["shop", "till"] },
          },
          {
            name: "unleash_histogram_latency",
            displayName: "latency",
            help: "",
            source: "internal",
            type: "histogram",
            labels: {},
          },
        ],
      },
    });
    const onSave = vi.fn(async () => {});
    const onClose = vi.fn();
    renderWithProviders(
      <SafeguardModal
        title="Add a safeguard to release plan Gradual"
        effect="The plan pauses."
        safeguard={undefined}
        submitLabel="Save safeguard"
        onSave={onSave}
        onClose={onClose}
      />,
    );
    const dialog = screen.getByRole("dialog", { name: "Add a safeguard to release plan Gradual" });
    const metric = within(dialog).getByRole("combobox", { name: "Metric" });
    await userEvent.click(metric);
    await userEvent.click(await screen.findByRole("option", { name: "unleash_histogram_latency" }));
    // A histogram is aggregated by percentiles: the count picked before does not apply.
    expect(within(dialog).getByRole("combobox", { name: "Aggregation" })).toHaveValue("Median (p50)");
    await userEvent.clear(metric);
    await userEvent.click(metric);
    await userEvent.click(await screen.findByRole("option", { name: "unleash_counter_errors" }));
    expect(within(dialog).getByText("A counter: Checkout errors")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Aggregation" }));
    expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
      "Rate per second",
      "Count",
    ]);
    await userEvent.click(screen.getByRole("option", { name: "Count" }));

    const threshold = within(dialog).getByRole("textbox", { name: "Threshold" });
    await userEvent.clear(threshold);
    await userEvent.type(threshold, "5");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add label filter" }));
    await userEvent.type(within(dialog).getByRole("combobox", { name: "Label" }), "appName");
    await userEvent.type(within(dialog).getByRole("combobox", { name: "Values" }), "shop{Enter}");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save safeguard" }));

    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(onSave).toHaveBeenCalledWith({
      impactMetric: {
        metricName: "unleash_counter_errors",
        timeRange: "hour",
        aggregationMode: "count",
        labelSelectors: { appName: ["shop"] },
      },
      triggerCondition: { operator: ">", threshold: 5 },
    });
  }, 40_000);

  it("will not hand on a safeguard without a metric", async () => {
    service.serve({ "GET /api/admin/impact-metrics/metadata": { metrics: [] } });
    const onSave = vi.fn(async () => {});
    renderWithProviders(
      <SafeguardModal
        title="Add a safeguard"
        effect="The flag is switched off."
        safeguard={undefined}
        submitLabel="Save safeguard"
        onSave={onSave}
        onClose={() => {}}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "Save safeguard" }));
    // The browser asks for the required field before the form's own rules do.
    expect(screen.getByRole("combobox", { name: "Metric" })).toBeInvalid();
    expect(onSave).not.toHaveBeenCalled();
  });
});
