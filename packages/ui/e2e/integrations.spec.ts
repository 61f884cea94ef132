import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { ADMIN_PASSWORD, admin, expect, logIn, snap, test } from "./support/service";

/** Picks an option of a Mantine Select or MultiSelect by the field's label. */
async function choose(page: Page, label: string, option: string, scope = page.getByRole("dialog")) {
  await scope.getByRole("combobox", { name: label }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

const bodyOf = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => resolve(text));
  });

/** A webhook receiver on a random local port: what it was sent, in order. */
async function receiver() {
  const received: { type: string; featureName: string | null; data: unknown }[] = [];
  const server = createServer(async (request, response) => {
    received.push(JSON.parse(await bodyOf(request)));
    response.writeHead(200, { "content-type": "text/plain" }).end("thanks");
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise((closed) => server.close(closed)),
  };
}

test("a webhook made in the browser receives a flag's creation, and its delivery log shows it", async ({
  page,
}) => {
  const hook = await receiver();
  try {
    await logIn(page, "admin", ADMIN_PASSWORD);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
    await expect(page.getByRole("heading", { level: 2, name: "Integrations" })).toBeVisible();

    await page.getByRole("button", { name: "Configure Webhook" }).click();
    const form = page.getByRole("dialog", { name: "New Webhook integration" });
    await form.getByRole("button", { name: "Create integration" }).click();
    await expect(form.getByText("Webhook URL is required.")).toBeVisible();
    await form.getByLabel("Webhook URL").fill(hook.url);
    await form.getByRole("textbox", { name: "Description" }).fill("The e2e receiver");
    await choose(page, "Events", "feature-created", form);
    await choose(page, "Projects", "Default", form);
    await form.getByRole("button", { name: "Create integration" }).click();
    await expect(form).toBeHidden();

    const table = page.getByRole("table", { name: "Configured integrations" });
    const row = table.getByRole("row").filter({ hasText: "The e2e receiver" });
    await expect(row).toContainText("feature-created");
    await expect(row).toContainText("default");
    const name = ((await row.getByRole("cell").first().locator("p").first().textContent()) ?? "").trim();
    expect(name).toMatch(/^Webhook #\d+$/);
    // The URL is sensitive: editing shows the mask, never the address.
    await row.getByRole("button", { name: `Edit ${name}` }).click();
    const edit = page.getByRole("dialog", { name: `Edit ${name}` });
    await expect(edit.getByLabel("Webhook URL")).toHaveValue("*****");
    await edit.getByRole("button", { name: "Cancel" }).click();
    await expect(edit).toBeHidden();
    await snap(page, "integrations");

    await page.goto("/projects/default");
    await page.getByRole("button", { name: "New flag" }).click();
    const newFlag = page.getByRole("dialog", { name: "New flag" });
    await newFlag.getByRole("textbox", { name: "Name" }).fill("webhook-announced");
    await newFlag.getByRole("button", { name: "Create flag" }).click();
    await expect(page).toHaveURL(/\/features\/webhook-announced$/);

    await expect
      .poll(() => hook.received.map((event) => `${event.type} ${event.featureName}`), { timeout: 15_000 })
      .toContain("feature-created webhook-announced");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
    await page.getByRole("button", { name: `Delivery log of ${name}` }).click();
    const log = page.getByRole("table", { name: `Deliveries of ${name}` });
    const delivery = log.getByRole("row").filter({ hasText: "webhook-announced" });
    await expect(delivery).toContainText("feature-created");
    await expect(delivery).toContainText("Delivered");
    await expect(delivery).toContainText("HTTP 200");
    await snap(page, "integration-delivery-log");
    await page.keyboard.press("Escape");

    const before = hook.received.length;
    await row.getByRole("button", { name: `Send test event to ${name}` }).click();
    await expect(page.getByRole("status").filter({ hasText: "Test event delivered" })).toContainText(
      `Test event delivered to ${name} (HTTP 200).`,
    );
    expect(hook.received.slice(before)).toEqual([
      expect.objectContaining({
        type: "feature-created",
        featureName: "signalbox-test-event",
        data: { name: "signalbox-test-event", test: true },
      }),
    ]);

    await row.getByRole("button", { name: `Delete ${name}` }).click();
    await page
      .getByRole("dialog", { name: `Delete integration ${name}?` })
      .getByRole("button", {
        name: "Delete integration",
      })
      .click();
    await expect(table.getByRole("row").filter({ hasText: "The e2e receiver" })).toHaveCount(0);
  } finally {
    await hook.close();
  }
});

test("a project's flags exported for development import into another project, validated first", async ({
  page,
}) => {
  // A project of this flow's own, so that moving its flags out touches no other flow's.
  await admin("POST", "/projects", { id: "outgoing", name: "Outgoing" });
  for (const name of ["moving-checkout", "moving-search"]) {
    await admin("POST", "/projects/outgoing/features", { name, description: `${name}, moved` });
    await admin("POST", `/projects/outgoing/features/${name}/environments/development/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "40", stickiness: "default", groupId: name },
    });
    await admin("POST", `/projects/outgoing/features/${name}/environments/development/on`);
  }
  await admin("POST", "/projects", { id: "imports", name: "Imports" });

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/projects/outgoing");
  await page.getByRole("button", { name: "Export", exact: true }).click();
  const exporting = page.getByRole("dialog", { name: /^Export flags of/ });
  await choose(page, "Environment", "development", exporting);
  const downloading = page.waitForEvent("download");
  await exporting.getByRole("button", { name: "Export to a file" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^export-outgoing-development-\d{4}-\d{2}-\d{2}\.json$/);
  const file = test.info().outputPath(download.suggestedFilename());
  await download.saveAs(file);
  const exported = JSON.parse(await readFile(file, "utf8")) as {
    features: { name: string }[];
    featureStrategies: { featureName: string; name: string }[];
  };
  const names = exported.features.map((feature) => feature.name);
  expect(names).toEqual(["moving-checkout", "moving-search"]);
  expect(exported.featureStrategies).toContainEqual(
    expect.objectContaining({ featureName: "moving-checkout", name: "flexibleRollout" }),
  );

  await page.goto("/projects/imports");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const importing = page.getByRole("dialog", { name: "Import flags into Imports" });
  await choose(page, "Environment", "development", importing);
  const choosing = page.waitForEvent("filechooser");
  await importing.getByRole("button", { name: /Export file/ }).click();
  await (await choosing).setFiles(file);
  await expect(importing).toContainText(`The file holds ${names.length} flags`);
  const apply = importing.getByRole("button", { name: "Import", exact: true });
  await expect(apply).toBeDisabled();

  // The flags still live in their project: the service would refuse them, and says so first.
  await importing.getByRole("button", { name: "Validate" }).click();
  const errors = importing.getByRole("alert").filter({ hasText: "Errors" });
  await expect(errors).toContainText("moving-checkout (in project outgoing)");
  await expect(apply).toBeDisabled();
  await expect(apply).toHaveAttribute("aria-description", /The file has errors/);
  await snap(page, "import-dialog-errors");

  // Moved rather than copied: gone from their project, the file is importable.
  for (const name of names) {
    await admin("DELETE", `/projects/outgoing/features/${name}`);
    await admin("DELETE", `/archive/${name}`);
  }
  await importing.getByRole("button", { name: "Validate again" }).click();
  await expect(importing.getByText("Ready to import")).toBeVisible();
  await expect(apply).toBeEnabled();
  await snap(page, "import-dialog-ready");
  await apply.click();
  await expect(importing).toBeHidden();

  const flags = page.getByRole("table", { name: "Flags" });
  await expect(flags).toContainText("moving-checkout");
  await expect(flags).toContainText("moving-search");
  const imported = await admin<{ project: string; environments: { name: string; enabled: boolean }[] }>(
    "GET",
    "/projects/imports/features/moving-checkout",
  );
  expect(imported.project).toBe("imports");
  expect(imported.environments.find((environment) => environment.name === "development")?.enabled).toBe(true);
});

test("the project's health and insights tab shows its figures and charts", async ({ page }) => {
  await admin("POST", "/projects", { id: "insightful", name: "Insightful" });
  await admin("POST", "/projects/insightful/features", { name: "insight-release", type: "release" });
  await admin("POST", "/projects/insightful/features", { name: "insight-experiment", type: "experiment" });
  await admin("POST", "/projects/insightful/stale", { features: ["insight-experiment"], stale: true });
  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/projects/insightful");
  await page.getByRole("tab", { name: "Health and insights" }).click();
  await expect(page).toHaveURL(/\/projects\/insightful\/insights$/);
  await expect(page.getByRole("group", { name: "Flags created" })).toContainText("2");
  await expect(page.getByRole("region", { name: "Flag types" })).toContainText("1 experiment");
  await expect(page.getByRole("region", { name: "Flag types" })).toContainText("1 release");
  await expect(page.getByRole("region", { name: "Flags by state" })).toContainText("1 stale");
  await expect(page.getByRole("region", { name: "Stale flags" })).toContainText("insight-experiment");
  await snap(page, "project-insights");
});
