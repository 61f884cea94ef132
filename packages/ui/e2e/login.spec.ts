import { ADMIN_PASSWORD, expect, logIn, snap, test } from "./support/service";

test("a wrong password is refused on the form, with the service's words", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.getByLabel("Username or email").fill("admin");
  await page.getByRole("textbox", { name: "Password" }).fill("not-the-password");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("alert")).toContainText(/password/i);
  await snap(page, "login");
});

test("logging in opens the projects page; logging out ends the session", async ({ page }) => {
  await logIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("table", { name: "Projects" })).toContainText("Default");
  await snap(page, "projects");

  await page.getByRole("button", { name: /^Account of/ }).click();
  await page.getByRole("menuitem", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "You have logged out" })).toBeVisible();
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/login/);
});

test("a deep link asks for a login, then opens where it pointed", async ({ page }) => {
  await page.goto("/events?type=feature-created");
  await expect(page).toHaveURL(/\/login\?next=%2Fevents%3Ftype%3Dfeature-created/);
  await page.getByLabel("Username or email").fill("admin");
  await page.getByRole("textbox", { name: "Password" }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/events\?type=feature-created$/);
});
