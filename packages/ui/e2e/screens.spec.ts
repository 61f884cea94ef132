import { SCREENS } from "../src/app/screens";
import { ADMIN_PASSWORD, admin, expect, logIn, snap, test } from "./support/service";

test("every screen of the navigation opens without an error, and is saved as a picture", async ({ page }) => {
  await admin("POST", "/projects/default/features", { name: "tour-flag", description: "Seen on the tour" });
  await logIn(page, "admin", ADMIN_PASSWORD);
  const navigation = page.getByRole("navigation", { name: "Main" });
  for (const screen of SCREENS) {
    await navigation.getByRole("link", { name: screen.label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${screen.path}$`));
    await expect(page.getByRole("heading", { level: 2, name: screen.label })).toBeVisible();
    await expect(
      page.getByRole("alert").filter({ hasText: /Could not load|Not allowed|Not found/ }),
    ).toHaveCount(0);
    await snap(page, `screen${screen.path.replaceAll("/", "-")}`);
  }

  await page.goto("/projects/default");
  await expect(page.getByRole("table", { name: "Flags" })).toContainText("tour-flag");
  await snap(page, "project-flags");
});

test("Ctrl+K jumps to a flag by typing part of its name", async ({ page }) => {
  await admin("POST", "/projects/default/features", { name: "palette-target" });
  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.keyboard.press("Control+k");
  const search = page.getByRole("textbox", { name: "Jump to" });
  await search.fill("palette-tar");
  await page.getByRole("button", { name: /palette-target/ }).click();
  await expect(page).toHaveURL(/\/projects\/default\/features\/palette-target$/);
  await expect(page.getByRole("heading", { name: "palette-target" })).toBeVisible();
});
