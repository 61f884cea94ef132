import type { Locator, Page } from "@playwright/test";
import { ADMIN_PASSWORD, admin, expect, logIn, reportCounter, snap, test } from "./support/service";

// Unique per run: the service's data outlives a retried test.
const RUN = Date.now().toString(36);

/** A flag environment's panel on the flag's page. */
const environmentPanel = (page: Page, environment: string) =>
  page.getByRole("region", { name: environment, exact: true });

const milestone = (panel: Locator, name: string) =>
  panel.getByRole("listitem", { name: `Milestone ${name}`, exact: true });

/** Adds a strategy to a template's milestone through its dialog: a gradual rollout of `rollout`%. */
async function addRollout(page: Page, group: Locator, rollout: number) {
  await group.getByRole("button", { name: /^Add a strategy to Milestone/ }).click();
  const dialog = page.getByRole("dialog", { name: /^Add a strategy/ });
  await dialog.getByRole("textbox", { name: "Rollout" }).fill(String(rollout));
  await dialog.getByRole("button", { name: "Add strategy" }).click();
  await expect(dialog).toBeHidden();
  await expect(group.getByRole("listitem")).toContainText([`${rollout}%`]);
}

test("a person makes a release template, adds it to a flag's development environment, starts it and watches it advance", async ({
  page,
}) => {
  const template = `Gradual ${RUN}`;
  const flag = `release-${RUN}`;
  await admin("POST", "/projects/default/features", { name: flag });
  await logIn(page, "admin", ADMIN_PASSWORD);

  // The template, made in the browser: three milestones, the last added one moved up.
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Release templates" })
    .click();
  await page.getByRole("button", { name: "New template" }).click();
  const form = page.getByRole("form", { name: "New release template" });
  const about = form.getByRole("group", { name: "Template", exact: true });
  await about.getByRole("textbox", { name: "Name" }).fill(template);
  await about.getByRole("textbox", { name: "Description" }).fill("Ten percent, half, everyone");
  const first = form.getByRole("group", { name: "Milestone 1", exact: true });
  await first.getByRole("textbox", { name: "Name" }).fill("Canary");
  await addRollout(page, first, 10);
  await form.getByRole("button", { name: "Add milestone" }).click();
  const second = form.getByRole("group", { name: "Milestone 2", exact: true });
  await second.getByRole("textbox", { name: "Name" }).fill("Everyone");
  await addRollout(page, second, 100);
  await form.getByRole("button", { name: "Add milestone" }).click();
  const third = form.getByRole("group", { name: "Milestone 3", exact: true });
  await third.getByRole("textbox", { name: "Name" }).fill("Half");
  await addRollout(page, third, 50);
  await third.getByRole("button", { name: "Move Milestone 3 up" }).click();
  await expect(second.getByRole("textbox", { name: "Name" })).toHaveValue("Half");
  await expect(third.getByRole("textbox", { name: "Name" })).toHaveValue("Everyone");
  await second.getByRole("textbox", { name: "Advance after (minutes)" }).fill("30");
  await snap(page, "release-template-form");
  await form.getByRole("button", { name: "Create template" }).click();

  await expect(page).toHaveURL(/\/release-templates$/);
  const row = page
    .getByRole("table", { name: "Release templates" })
    .getByRole("row")
    .filter({ hasText: template });
  await expect(row).toContainText("3 milestones");
  await expect(row.getByRole("list", { name: `Milestones of ${template}` }).getByRole("listitem")).toHaveText(
    ["Canary", "Half, then 30 min", "Everyone"],
  );
  await snap(page, "release-templates");

  // A plan from it on the flag's development environment: nothing starts on its own.
  await page.goto(`/projects/default/features/${flag}`);
  const development = environmentPanel(page, "development");
  await development.getByRole("button", { name: "Add a release plan in development" }).click();
  const adding = page.getByRole("dialog", { name: "Add a release plan in development" });
  await adding.getByRole("combobox", { name: "Template" }).click();
  await page.getByRole("option", { name: template }).click();
  await adding.getByRole("button", { name: "Add release plan" }).click();
  await expect(adding).toBeHidden();
  const timeline = development.getByRole("list", { name: `Milestones of ${template}` });
  await expect(timeline.getByRole("listitem")).toHaveCount(3);
  await expect(milestone(timeline, "Canary")).toContainText("Waiting");

  // Started by hand: the milestone is the active one, and serves its rollout in development.
  await milestone(timeline, "Canary").getByRole("button", { name: "Start Canary" }).click();
  await expect(milestone(timeline, "Canary")).toHaveAttribute("aria-current", "step");
  await expect(milestone(timeline, "Canary")).toContainText("Active");
  await expect(development.getByRole("article", { name: /^Strategy / })).toContainText("Rollout 10%");
  await expect(milestone(timeline, "Half")).toContainText("Waiting");

  // A progression on the active milestone: the timeline counts down to the next one.
  await milestone(timeline, "Canary").getByRole("button", { name: "Set the progression of Canary" }).click();
  const progression = page.getByRole("dialog", { name: "Progression of Canary" });
  await expect(progression.getByRole("combobox", { name: "Advance to" })).toHaveValue("Half");
  await progression.getByRole("textbox", { name: "After (minutes)" }).fill("30");
  await progression.getByRole("button", { name: "Save progression" }).click();
  await expect(milestone(timeline, "Canary")).toContainText("Advances to Half after 30 minutes.");
  const countdown = milestone(timeline, "Canary").getByRole("timer");
  await expect(countdown).toHaveText(/^Next milestone in (1 min|\d+ s)/);
  const said = await countdown.textContent();
  await expect(countdown).not.toHaveText(said ?? "");
  await snap(page, "release-plan-countdown");

  // Shortened until it is due: the service hands over to Half, and the page follows without a reload.
  await milestone(timeline, "Canary").getByRole("button", { name: "Edit the progression of Canary" }).click();
  await progression.getByRole("textbox", { name: "After (minutes)" }).fill("1");
  await progression.getByRole("button", { name: "Save progression" }).click();
  await expect(milestone(timeline, "Half")).toHaveAttribute("aria-current", "step", { timeout: 20_000 });
  await expect(milestone(timeline, "Canary")).toContainText("Done");
  await expect(milestone(timeline, "Half").getByRole("timer")).toHaveText(/^Next milestone in/);
  await expect(development.getByRole("article", { name: /^Strategy / })).toContainText("Rollout 50%");
  await snap(page, "release-plan-advanced");
});

test("a safeguard pauses a release when its metric goes wrong, and switches the flag off; the person sees why and resumes", async ({
  page,
}) => {
  const flag = `guarded-${RUN}`;
  const base = `/projects/default/features/${flag}/environments/development`;
  const template = await admin<{ id: string }>("POST", "/release-plan-templates", {
    name: `Guarded ${RUN}`,
    milestones: [
      {
        name: "Canary",
        sortOrder: 0,
        strategies: [{ name: "flexibleRollout", parameters: { rollout: "10" } }],
        transitionCondition: { intervalMinutes: 600 },
      },
      {
        name: "Everyone",
        sortOrder: 1,
        strategies: [{ name: "flexibleRollout", parameters: { rollout: "100" } }],
      },
    ],
  });
  await admin("POST", "/projects/default/features", { name: flag });
  const plan = await admin<{ id: string; milestones: { id: string; name: string }[] }>(
    "POST",
    `${base}/release-plans`,
    { templateId: template.id },
  );
  const canary = plan.milestones.find((candidate) => candidate.name === "Canary")!;
  await admin("POST", `${base}/release-plans/${plan.id}/milestones/${canary.id}/start`);
  await admin("POST", `${base}/on`);
  const errors = {
    impactMetric: {
      metricName: "unleash_counter_errors",
      timeRange: "hour",
      aggregationMode: "count",
      labelSelectors: { appName: ["shop"] },
    },
    triggerCondition: { operator: ">", threshold: 0 },
  };
  await admin("PUT", `${base}/release-plans/${plan.id}/safeguards`, errors);
  await admin("PUT", `${base}/safeguards`, errors);

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto(`/projects/default/features/${flag}`);
  const development = environmentPanel(page, "development");
  await expect(
    development.getByRole("region", { name: `Safeguard of release plan Guarded ${RUN}` }),
  ).toContainText("Count of unleash_counter_errors above 0 (appName: shop)");
  const paused = development.getByRole("alert", { name: "Safeguard triggered: the release is paused" });
  const switchedOff = development.getByRole("alert", {
    name: "Safeguard switched this flag off in development",
  });
  await expect(paused).toHaveCount(0);
  await expect(development.getByRole("switch", { name: "Enabled in development" })).toBeChecked();

  // The shop reports errors, as an SDK does.
  const reported = Date.now();
  await reportCounter("shop", "errors", 50);

  // Within an evaluation and a refresh of the page: both safeguards acted, and say so.
  await expect(paused).toBeVisible({ timeout: 20_000 });
  await expect(paused).toContainText("Canary goes on serving its strategies");
  await expect(milestone(development, "Canary")).toContainText("Paused");
  await expect(switchedOff).toBeVisible();
  await expect(development.getByRole("switch", { name: "Enabled in development" })).not.toBeChecked();
  // The safeguard's chart, read again once it acted, shows what it acted on.
  await expect(
    development.getByRole("region", { name: `Safeguard of release plan Guarded ${RUN}` }),
  ).toContainText(
    /The count of unleash_counter_errors in the last hour, a point every 1m; the latest .*50\./,
  );
  await snap(page, "release-plan-paused");

  // Once the errors are out of the safeguard's window, the person resumes the release.
  await page.waitForTimeout(Math.max(0, reported + 7_000 - Date.now()));
  await paused.getByRole("button", { name: `Resume Guarded ${RUN}` }).click();
  await expect(paused).toBeHidden();
  await expect(milestone(development, "Canary")).toContainText("Active");
  await expect(milestone(development, "Canary").getByRole("timer")).toHaveText(/^Next milestone in/);

  // Switching the flag back on takes the other banner away.
  await development.getByRole("switch", { name: "Enabled in development" }).click();
  await expect(switchedOff).toBeHidden();
});
