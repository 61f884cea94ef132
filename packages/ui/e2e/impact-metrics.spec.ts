import { ADMIN_PASSWORD, admin, expect, logIn, reportCounter, snap, test } from "./support/service";

// Unique per run: the service's data outlives a retried test.
const RUN = Date.now().toString(36);

test("a person charts a counter an application reported on the flag's Impact tab, changes its aggregation and removes it", async ({
  page,
}) => {
  const flag = `impact-${RUN}`;
  const counter = `purchases_${RUN}`;
  const metricName = `unleash_counter_${counter}`;
  await admin("POST", "/projects/default/features", { name: flag });

  // The shop reports 7 purchases, as an SDK does with its usage.
  await reportCounter("shop", counter, 7, "Purchases made");

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto(`/projects/default/features/${flag}`);
  await page.getByRole("tab", { name: "Impact" }).click();
  await expect(page).toHaveURL(/[?&]tab=impact/);
  // Nothing charted yet: the tab says how SDKs report what it would draw.
  await expect(page.getByText("No impact metrics are charted for this flag yet.")).toBeVisible();
  await expect(page.getByText("unleash_counter_<name>")).toBeVisible();

  // A chart of the shop's purchases, counted, over the last hour.
  await page.getByRole("button", { name: "Add chart" }).click();
  const adding = page.getByRole("dialog", { name: `Add a chart to ${flag}` });
  await adding.getByRole("combobox", { name: "Metric" }).fill(counter);
  await page.getByRole("option", { name: metricName }).click();
  await expect(adding.getByText("A counter: Purchases made")).toBeVisible();
  await adding.getByRole("combobox", { name: "Aggregation" }).click();
  await expect(page.getByRole("option")).toHaveText(["Rate per second", "Count"]);
  await page.getByRole("option", { name: "Count" }).click();
  await adding.getByRole("button", { name: "Add label filter" }).click();
  await adding.getByRole("combobox", { name: "Label" }).click();
  await page.getByRole("option", { name: "appName", exact: true }).click();
  await adding.getByRole("combobox", { name: "Values" }).click();
  await page.getByRole("option", { name: "shop", exact: true }).click();
  await adding.getByRole("textbox", { name: "Title" }).fill("Shop purchases");
  await snap(page, "impact-chart-form");
  await adding.getByRole("button", { name: "Add chart" }).click();
  await expect(adding).toBeHidden();

  // The chart, with what it draws said in a sentence: the 7 reported.
  const chart = page.getByRole("region", { name: "Shop purchases" });
  await expect(chart).toContainText("Last hour; appName: shop");
  await expect(chart).toContainText(
    new RegExp(
      `The count of ${metricName} in the last hour, a point every 1m; the latest \\d+, the highest 7\\.`,
    ),
  );
  await snap(page, "impact-chart");

  // Its aggregation changed: the same purchases, per second of each minute.
  await chart.getByRole("button", { name: "Edit chart Shop purchases" }).click();
  const editing = page.getByRole("dialog", { name: "Edit chart Shop purchases" });
  await expect(editing.getByRole("combobox", { name: "Aggregation" })).toHaveValue("Count");
  await editing.getByRole("combobox", { name: "Aggregation" }).click();
  await page.getByRole("option", { name: "Rate per second" }).click();
  await editing.getByRole("button", { name: "Save chart" }).click();
  await expect(editing).toBeHidden();
  await expect(chart).toContainText(
    new RegExp(
      `The rate per second of ${metricName} in the last hour, a point every 1m; .*the highest 0\\.117\\.`,
    ),
  );

  // Removed, after the person confirms: the flag has no chart again.
  await chart.getByRole("button", { name: "Remove chart Shop purchases" }).click();
  await page
    .getByRole("dialog", { name: "Remove the chart Shop purchases?" })
    .getByRole("button", { name: "Remove chart" })
    .click();
  await expect(chart).toHaveCount(0);
  await expect(page.getByText("No impact metrics are charted for this flag yet.")).toBeVisible();
  expect(
    await admin<{ configs: unknown[] }>("GET", `/projects/default/features/${flag}/impact-metrics/config`),
  ).toEqual({ configs: [] });
});
