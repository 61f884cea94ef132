import type { Page } from "@playwright/test";
import { nodeSdk } from "./support/sdk";
import { ADMIN_PASSWORD, admin, expect, logIn, snap, test } from "./support/service";

/** Picks an option of a Mantine Select or MultiSelect by the field's label. */
async function choose(page: Page, label: string, option: string, scope = page.getByRole("dialog")) {
  await scope.getByRole("combobox", { name: label }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

test("a flag built in the browser is what the Node SDK evaluates, and follows what is changed there", async ({
  page,
}) => {
  // What the flow starts from: a context field with legal values and a segment over it.
  await admin("POST", "/context", {
    name: "region",
    legalValues: [{ value: "eu" }, { value: "us" }],
  });
  await admin("POST", "/segments", {
    name: "eu-customers",
    constraints: [{ contextName: "region", operator: "IN", values: ["eu"] }],
  });
  const sdk = await nodeSdk();
  try {
    await logIn(page, "admin", ADMIN_PASSWORD);

    await page.getByRole("button", { name: "New project" }).click();
    const newProject = page.getByRole("dialog", { name: "New project" });
    await newProject.getByLabel("Name").fill("Checkout team");
    await expect(newProject.getByLabel("Project id")).toHaveValue("checkout-team");
    await newProject.getByRole("button", { name: "Create project" }).click();
    await expect(page).toHaveURL(/\/projects\/checkout-team$/);

    await page.getByRole("button", { name: "New flag" }).click();
    const newFlag = page.getByRole("dialog", { name: "New flag" });
    await newFlag.getByRole("textbox", { name: "Name" }).fill("new-checkout");
    await newFlag.getByRole("button", { name: "Create flag" }).click();
    await expect(page).toHaveURL(/\/projects\/checkout-team\/features\/new-checkout$/);

    // A flexible rollout in development, for alice, in the EU segment.
    await page.getByRole("button", { name: "Add a strategy in development" }).click();
    const editor = page.getByRole("dialog", { name: "Add a strategy in development" });
    await expect(editor.getByRole("textbox", { name: "Group id" })).toHaveValue("new-checkout");
    await editor.getByRole("button", { name: "Add constraint" }).click();
    await choose(page, "Context field", "userId", editor);
    await choose(page, "Operator", "is one of (IN)", editor);
    const values = editor.getByRole("combobox", { name: "Values" });
    await values.fill("alice");
    await values.press("Enter");
    await choose(page, "Segments", "eu-customers", editor);
    await snap(page, "strategy-editor");
    await editor.getByRole("button", { name: "Add strategy" }).click();
    await expect(editor).toBeHidden();
    await expect(page.getByRole("list", { name: /^Constraints of/ })).toContainText("alice");

    // A variant with a JSON payload, checked as it is typed.
    await page.getByRole("tab", { name: "Variants" }).click();
    await page.getByRole("button", { name: "Add variant" }).first().click();
    await page.getByRole("textbox", { name: "Variant name" }).fill("blue");
    await page.getByRole("combobox", { name: "Payload type" }).selectOption({ label: "JSON" });
    const payload = page.getByRole("textbox", { name: "Payload" });
    await payload.fill('{"color": "blue"');
    await expect(payload).toHaveAttribute("aria-invalid", "true");
    await payload.fill('{"color": "blue"}');
    await expect(payload).not.toHaveAttribute("aria-invalid", "true");
    await page.getByRole("button", { name: "Save variants in development" }).click();
    await expect(page.getByRole("button", { name: "Save variants in development" })).toBeDisabled();

    await page.getByRole("tab", { name: "Environments" }).click();
    await page.getByRole("switch", { name: "Enabled in development" }).click();
    await expect(page.getByRole("switch", { name: "Enabled in development" })).toBeChecked();
    await snap(page, "flag");

    const alice = { userId: "alice", properties: { region: "eu" } };
    await expect.poll(() => sdk.isEnabled("new-checkout", alice), { timeout: 10_000 }).toBe(true);
    expect(sdk.getVariant("new-checkout", alice)).toMatchObject({
      name: "blue",
      enabled: true,
      payload: { type: "json", value: '{"color": "blue"}' },
    });
    expect(sdk.isEnabled("new-checkout", { userId: "bob", properties: { region: "eu" } })).toBe(false);
    expect(sdk.isEnabled("new-checkout", { userId: "alice", properties: { region: "us" } })).toBe(false);

    // Rolled back to nobody in the browser: the SDK's next poll has it off.
    await page
      .getByRole("button", { name: /^Edit / })
      .first()
      .click();
    const edit = page.getByRole("dialog", { name: /^Edit strategy/ });
    await edit.getByRole("textbox", { name: "Rollout" }).fill("0");
    await edit.getByRole("button", { name: "Save strategy" }).click();
    await expect(edit).toBeHidden();
    await expect.poll(() => sdk.isEnabled("new-checkout", alice), { timeout: 10_000 }).toBe(false);

    // The change is in the flag's history, as a diff of before and after.
    await page.getByRole("tab", { name: "History" }).click();
    await page
      .getByRole("button", { name: /^Changes in feature-strategy-update / })
      .first()
      .click();
    const diff = page.getByRole("region", { name: /^Changes in feature-strategy-update / }).first();
    await expect(diff).toContainText(/-\s+"rollout": "100"/);
    await expect(diff).toContainText(/\+\s+"rollout": "0"/);
    await snap(page, "flag-history");
  } finally {
    sdk.destroy();
  }
});
