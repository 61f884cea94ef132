import { ADMIN_PASSWORD, admin, expect, logIn, test } from "./support/service";

// What a person trying Signalbox on the first day ran into, each as they would meet it.

test("the playground tries each of several comma-separated values without the spaces typed after the commas", async ({
  page,
}) => {
  await admin("POST", "/context", { name: "zone" });
  await admin("POST", "/projects/default/features", { name: "eu-zones" });
  await admin("POST", "/projects/default/features/eu-zones/environments/development/strategies", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "eu-zones" },
    constraints: [{ contextName: "zone", operator: "STR_STARTS_WITH", values: ["eu-"] }],
  });
  await admin("POST", "/projects/default/features/eu-zones/environments/development/on");

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/playground");
  await expect(page.getByRole("form", { name: "Playground" })).toContainText("development");
  await page.getByRole("button", { name: "Add context field" }).click();
  await page.getByLabel("Context field 1").fill("zone");
  await page.getByRole("textbox", { name: "Value of zone" }).fill("eu-0, eu-2");
  await page.getByRole("button", { name: "Evaluate" }).click();

  const results = page.getByRole("table", { name: "Playground results" });
  await expect(results.getByRole("row", { name: /eu-zones/ })).toContainText("On for 2 of 2 contexts");
  await page.getByRole("button", { name: "Why eu-zones" }).click();
  const why = page.getByRole("region", { name: "Why eu-zones is on or off" });
  // Each value compared as typed between the commas, and each passes.
  await expect(why.getByRole("row").filter({ hasText: "STR_STARTS_WITH" })).toHaveText([
    /^zone\s*eu-0\s*STR_STARTS_WITH\s*eu-\s*✓ Passed$/,
    /^zone\s*eu-2\s*STR_STARTS_WITH\s*eu-\s*✓ Passed$/,
  ]);
});

test.describe("in a window 768 pixels high", () => {
  test.use({ viewport: { width: 1280, height: 768 } });

  test("a webhook to a private address is refused beside the button that was pressed, the URL typed in the open", async ({
    page,
  }) => {
    await logIn(page, "admin", ADMIN_PASSWORD);
    await page.goto("/integrations");
    await page.getByRole("button", { name: "Configure Webhook" }).click();
    const form = page.getByRole("dialog", { name: "New Webhook integration" });
    // The dialog is longer than the window: its fields scroll under the buttons.
    expect(await form.evaluate((dialog) => dialog.scrollHeight > dialog.clientHeight)).toBe(true);

    // A plain text field, not a masked one: what is typed can be read back.
    const url = form.getByRole("textbox", { name: "Webhook URL" });
    await url.fill("http://10.0.0.1/hook");
    await expect(url).toHaveAttribute("type", "url");
    await form.getByRole("button", { name: "Select all events" }).click();
    const create = form.getByRole("button", { name: "Create integration" });
    await create.click();

    const refusal = form.getByRole("alert").filter({ hasText: "Not saved" });
    await expect(refusal).toContainText("10.0.0.1 resolves to 10.0.0.1, a private");
    await expect(refusal).toBeInViewport();
    await expect(create).toBeInViewport();
    const [said, button] = [await refusal.boundingBox(), await create.boundingBox()];
    if (!said || !button) throw new Error("the refusal or the button has no box");
    // Just above the button.
    expect(button.y - (said.y + said.height)).toBeGreaterThanOrEqual(0);
    expect(button.y - (said.y + said.height)).toBeLessThan(60);
    // And the field at fault is where the person is taken, with the reason under it.
    await expect(url).toBeFocused();
    await expect(url).toBeInViewport();
    await expect(url).toHaveAccessibleDescription(/10\.0\.0\.1 resolves to/);
    // Nothing was made.
    expect((await admin<{ addons: unknown[] }>("GET", "/addons")).addons).toEqual([]);
  });

  test("every link of the navigation shows, and the last one leads to its page", async ({ page }) => {
    await logIn(page, "admin", ADMIN_PASSWORD);
    const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
    await expect(links).toHaveCount(18);
    for (const link of await links.all()) {
      // Whole (give or take a fraction of a pixel) without scrolling, and nothing lies over it.
      await expect(link).toBeInViewport({ ratio: 0.95 });
      await link.click({ trial: true });
    }
    const last = links.last();
    await expect(last).toHaveText("Profile and tokens");
    await last.click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole("heading", { level: 2, name: "Profile and tokens" })).toBeVisible();
  });
});

test("in a shorter window the navigation shows its scrollbar, and scrolls to the last link", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 560 });
  await logIn(page, "admin", ADMIN_PASSWORD);
  const navigation = page.getByRole("navigation", { name: "Main" });
  const last = navigation.getByRole("link", { name: "Profile and tokens" });
  await expect(last).not.toBeInViewport();
  // Shown before the pointer goes near it: nothing else says there is more below.
  await expect(navigation.locator(".mantine-ScrollArea-scrollbar[data-orientation=vertical]")).toBeVisible();
  await navigation.getByRole("link", { name: "Projects" }).hover();
  await page.mouse.wheel(0, 800);
  await expect(last).toBeInViewport({ ratio: 0.95 });
  await last.click();
  await expect(page.getByRole("heading", { level: 2, name: "Profile and tokens" })).toBeVisible();
});

test("after logging in, the projects show a loader until they have loaded, not a blank page", async ({
  page,
}) => {
  // The projects are held back until the loader has been seen, then answered by the service.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/admin/projects", async (route) => {
    await held;
    await route.continue();
  });
  await logIn(page, "admin", ADMIN_PASSWORD);
  const loading = page.getByRole("status", { name: "Loading projects" });
  await expect(loading).toBeVisible();
  release();
  await expect(page.getByRole("table", { name: "Projects" })).toContainText("Default");
  await expect(loading).toHaveCount(0);
});
