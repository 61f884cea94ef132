import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import type { Sent } from "../../../test/fake-service";
import { renderWithProviders } from "../../../test/render";
import type { FlagChart, FlagChartInput } from "../../impact-metrics/queries";
import type { Flag } from "../queries";
import { ImpactCharts } from "./impact-charts";

const CHARTS = "/api/admin/projects/web/features/checkout/impact-metrics/config";
const flag = { name: "checkout", project: "web", archived: false } as Flag;

const chart = (id: string, at: Partial<FlagChart> = {}): FlagChart => ({
  id,
  metricName: "unleash_counter_purchases",
  displayName: "purchases",
  timeRange: "hour",
  aggregationMode: "count",
  labelSelectors: {},
  yAxisMin: "auto",
  step: "1m",
  ...at,
});

const METADATA = {
  metrics: [
    {
      name: "unleash_counter_purchases",
      displayName: "purchases",
      help: "Purchases made",
      source: "internal",
      type: "counter",
      labels: { appName: ["shop", "till"], environment: ["production"] },
    },
    {
      name: "unleash_histogram_checkout_seconds",
      displayName: "checkout_seconds",
      help: "Checkout time",
      source: "internal",
      type: "histogram",
      labels: {},
    },
  ],
};

/** A metric's answer: three steps of a minute, 7 counted in the middle one. */
const SERIES = {
  series: [
    {
      metric: {},
      data: [
        [1_767_225_600, "0"],
        [1_767_225_660, "7"],
        [1_767_225_720, "0"],
      ],
    },
  ],
  start: "1767225600",
  end: "1767225780",
  step: "1m",
  labels: {},
};

/**
 * The service as the flag's Impact tab sees it: `charts` are the flag's charts, kept as the
 * PUT and DELETE sent change them.
 */
function serve(charts: FlagChart[], permissions: string[] = ["UPDATE_FEATURE"]) {
  let stored = charts;
  service.serve({
    "GET /api/admin/user": {
      user: { id: 7, username: "ann" },
      permissions: permissions.map((permission) => ({ permission, project: "web" })),
    },
    [`GET ${CHARTS}`]: () => ({ configs: stored }),
    [`PUT ${CHARTS}`]: (sent: Sent) => {
      const input = sent.body as FlagChartInput;
      const saved = chart(input.id ?? "new", { ...input, yAxisMin: input.yAxisMin ?? "auto" });
      stored = input.id ? stored.map((old) => (old.id === input.id ? saved : old)) : [...stored, saved];
      return saved;
    },
    [`DELETE ${CHARTS}/c1`]: () => {
      stored = stored.filter((old) => old.id !== "c1");
      return null;
    },
    "GET /api/admin/impact-metrics/metadata": METADATA,
    "GET /api/admin/impact-metrics/": SERIES,
  });
}

const show = () => renderWithProviders(<ImpactCharts flag={flag} />);
const writes = () => service.sent.filter((request) => request.method !== "GET");

describe("ImpactCharts", () => {
  it("explains how SDKs report impact metrics while the flag has no charts", async () => {
    serve([]);
    show();
    const empty = await screen.findByText("No impact metrics are charted for this flag yet.");
    const explanation = empty.parentElement!;
    expect(explanation).toHaveTextContent(
      'unleash.impactMetrics.defineCounter("purchases", "Purchases made")',
    );
    expect(explanation).toHaveTextContent('unleash.impactMetrics.incrementCounter("purchases")');
    expect(explanation).toHaveTextContent("unleash_counter_<name>");
    expect(explanation).toHaveTextContent('flagNames: ["checkout"]');
    await waitFor(() => expect(screen.getByRole("button", { name: "Add chart" })).toBeEnabled());
  });

  it("draws each chart over its range, named by its title or by its metric and aggregation, and says what it shows", async () => {
    serve([
      chart("c1", { title: "Purchases in the shop", labelSelectors: { appName: ["shop"] } }),
      chart("c2", { aggregationMode: "rps", timeRange: "day", step: "15m" }),
    ]);
    show();
    const titled = await screen.findByRole("region", { name: "Purchases in the shop" });
    expect(titled).toHaveTextContent("Last hour; appName: shop");
    await waitFor(() =>
      expect(titled).toHaveTextContent(
        "The count of unleash_counter_purchases in the last hour, a point every 1m; the latest 0, the highest 7.",
      ),
    );
    const untitled = screen.getByRole("region", { name: "Rate per second of unleash_counter_purchases" });
    expect(untitled).toHaveTextContent("Last day; every series");
    await waitFor(() =>
      expect(untitled).toHaveTextContent("The rate per second of unleash_counter_purchases in the last day"),
    );
    // Each from the data route, over its own range and aggregation, of the series its labels keep.
    const asked = service.sent.filter((request) => request.path === "/api/admin/impact-metrics/");
    expect(asked.map((request) => request.query)).toEqual(
      expect.arrayContaining([
        {
          metricName: "unleash_counter_purchases",
          range: "hour",
          aggregationMode: "count",
          labels: JSON.stringify({ appName: ["shop"] }),
          mode: "display",
        },
        {
          metricName: "unleash_counter_purchases",
          range: "day",
          aggregationMode: "rps",
          labels: "{}",
          mode: "display",
        },
      ]),
    );
  });

  it("adds a chart of a reported metric, with an aggregation of its type, a range, label filters from the values seen and a title", async () => {
    serve([]);
    show();
    await waitFor(() => expect(screen.getByRole("button", { name: "Add chart" })).toBeEnabled());
    await userEvent.click(screen.getByRole("button", { name: "Add chart" }));
    const dialog = screen.getByRole("dialog", { name: "Add a chart to checkout" });

    const metric = within(dialog).getByRole("combobox", { name: "Metric" });
    await userEvent.click(metric);
    await userEvent.click(await screen.findByRole("option", { name: "unleash_histogram_checkout_seconds" }));
    expect(within(dialog).getByRole("combobox", { name: "Aggregation" })).toHaveValue("Median (p50)");
    await userEvent.clear(metric);
    await userEvent.click(metric);
    await userEvent.click(await screen.findByRole("option", { name: "unleash_counter_purchases" }));
    expect(within(dialog).getByText("A counter: Purchases made")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Aggregation" }));
    expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
      "Rate per second",
      "Count",
    ]);
    await userEvent.click(screen.getByRole("option", { name: "Rate per second" }));
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Time range" }));
    await userEvent.click(screen.getByRole("option", { name: "Last day" }));

    await userEvent.click(within(dialog).getByRole("button", { name: "Add label filter" }));
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Label" }));
    expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
      "appName",
      "environment",
    ]);
    await userEvent.click(screen.getByRole("option", { name: "appName" }));
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Values" }));
    await userEvent.click(await screen.findByRole("option", { name: "shop" }));
    expect(within(dialog).getByRole("textbox", { name: "Title" })).toHaveAccessibleDescription(
      "Left empty: Rate per second of unleash_counter_purchases",
    );
    await userEvent.type(within(dialog).getByRole("textbox", { name: "Title" }), "Shop purchases");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add chart" }));

    await waitFor(() =>
      expect(writes()).toEqual([
        {
          method: "PUT",
          path: CHARTS,
          body: {
            metricName: "unleash_counter_purchases",
            timeRange: "day",
            aggregationMode: "rps",
            labelSelectors: { appName: ["shop"] },
            title: "Shop purchases",
            yAxisMin: "auto",
          },
        },
      ]),
    );
    expect(await screen.findByRole("region", { name: "Shop purchases" })).toHaveTextContent(
      "Last day; appName: shop",
    );
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  }, 40_000);

  it("will not add a chart without a metric", async () => {
    serve([]);
    show();
    await waitFor(() => expect(screen.getByRole("button", { name: "Add chart" })).toBeEnabled());
    await userEvent.click(screen.getByRole("button", { name: "Add chart" }));
    const dialog = screen.getByRole("dialog", { name: "Add a chart to checkout" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Add chart" }));
    // The browser asks for the required field before the form's own rules do.
    expect(within(dialog).getByRole("combobox", { name: "Metric" })).toBeInvalid();
    expect(writes()).toEqual([]);
  });

  it("edits a chart from what it is, replacing it by its id", async () => {
    serve([chart("c1", { labelSelectors: { appName: ["shop"] }, yAxisMin: "zero" })]);
    show();
    const card = await screen.findByRole("region", { name: "Count of unleash_counter_purchases" });
    await waitFor(() =>
      expect(
        within(card).getByRole("button", { name: "Edit chart Count of unleash_counter_purchases" }),
      ).toBeEnabled(),
    );
    await userEvent.click(
      within(card).getByRole("button", { name: "Edit chart Count of unleash_counter_purchases" }),
    );
    const dialog = screen.getByRole("dialog", { name: "Edit chart Count of unleash_counter_purchases" });
    expect(within(dialog).getByRole("combobox", { name: "Metric" })).toHaveValue("unleash_counter_purchases");
    expect(within(dialog).getByRole("combobox", { name: "Aggregation" })).toHaveValue("Count");
    expect(within(dialog).getByRole("checkbox", { name: "Start the value axis at zero" })).toBeChecked();
    await userEvent.click(within(dialog).getByRole("combobox", { name: "Aggregation" }));
    await userEvent.click(screen.getByRole("option", { name: "Rate per second" }));
    await userEvent.click(within(dialog).getByRole("button", { name: "Save chart" }));

    await waitFor(() =>
      expect(writes().map((request) => request.body)).toEqual([
        {
          id: "c1",
          metricName: "unleash_counter_purchases",
          timeRange: "hour",
          aggregationMode: "rps",
          labelSelectors: { appName: ["shop"] },
          yAxisMin: "zero",
        },
      ]),
    );
    expect(
      await screen.findByRole("region", { name: "Rate per second of unleash_counter_purchases" }),
    ).toBeVisible();
  });

  it("removes a chart once the person confirms", async () => {
    serve([chart("c1", { title: "Purchases" })]);
    show();
    const card = await screen.findByRole("region", { name: "Purchases" });
    await waitFor(() =>
      expect(within(card).getByRole("button", { name: "Remove chart Purchases" })).toBeEnabled(),
    );
    await userEvent.click(within(card).getByRole("button", { name: "Remove chart Purchases" }));
    const confirm = screen.getByRole("dialog", { name: "Remove the chart Purchases?" });
    expect(writes()).toEqual([]);
    await userEvent.click(within(confirm).getByRole("button", { name: "Remove chart" }));
    await waitFor(() =>
      expect(writes()).toEqual([{ method: "DELETE", path: `${CHARTS}/c1`, body: undefined }]),
    );
    expect(await screen.findByText("No impact metrics are charted for this flag yet.")).toBeInTheDocument();
  });

  it("says an archived flag's charts come back when it is revived, and asks the service nothing", async () => {
    serve([chart("c1")]);
    renderWithProviders(<ImpactCharts flag={{ ...flag, archived: true }} />);
    expect(
      await screen.findByText("This flag is archived: revive it to see and change its impact metric charts."),
    ).toBeInTheDocument();
    const add = screen.getByRole("button", { name: "Add chart" });
    expect(add).toBeDisabled();
    expect(add).toHaveAccessibleDescription("This flag is archived: revive it to change it.");
    expect(service.sent.filter((request) => request.path === CHARTS)).toEqual([]);
  });

  it("keeps someone who may not change the flag from adding, editing or removing charts, and says why", async () => {
    serve([chart("c1", { title: "Purchases" })], []);
    show();
    const card = await screen.findByRole("region", { name: "Purchases" });
    const reason = "You need the UPDATE_FEATURE permission in project web.";
    for (const button of [
      screen.getByRole("button", { name: "Add chart" }),
      within(card).getByRole("button", { name: "Edit chart Purchases" }),
      within(card).getByRole("button", { name: "Remove chart Purchases" }),
    ]) {
      await waitFor(() => expect(button).toBeDisabled());
      expect(button).toHaveAccessibleDescription(reason);
    }
  });
});
