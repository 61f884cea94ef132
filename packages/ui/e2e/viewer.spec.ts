import { admin, expect, logIn, snap, test } from "./support/service";

const VIEWER = { username: "vera", password: "Viewer-pass-123" };

test("a Viewer sees projects and flags, and every control that would change them is disabled with the reason", async ({
  page,
}) => {
  await admin("POST", "/user-admin", { ...VIEWER, name: "Vera Viewer", rootRole: "Viewer" });
  await admin("POST", "/projects/default/features", {
    name: "viewer-visible",
    description: "Seen, not changed",
  });
  await admin("POST", "/projects/default/features/viewer-visible/environments/development/strategies", {
    name: "flexibleRollout",
    parameters: { rollout: "50", stickiness: "default", groupId: "viewer-visible" },
  });

  await logIn(page, VIEWER.username, VIEWER.password);
  const newProject = page.getByRole("button", { name: "New project" });
  await expect(newProject).toBeDisabled();
  await expect(newProject).toHaveAccessibleDescription(/CREATE_PROJECT/);
  // Admin screens are not offered to someone who could use none of them.
  await expect(page.getByRole("link", { name: "Users" })).toHaveCount(0);

  await page.getByRole("link", { name: "Default" }).click();
  const row = page.getByRole("switch", { name: "viewer-visible in development" });
  await expect(row).toBeDisabled();
  await expect(row).toHaveAccessibleDescription(/UPDATE_FEATURE_ENVIRONMENT/);
  await expect(page.getByRole("button", { name: "New flag" })).toBeDisabled();
  await snap(page, "viewer-project");

  await page.getByRole("link", { name: "viewer-visible" }).click();
  await expect(page.getByRole("heading", { name: "viewer-visible" })).toBeVisible();
  await expect(page.getByText("Rollout 50%")).toBeVisible();
  await expect(page.getByRole("switch", { name: "Enabled in development" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Add a strategy in development" })).toBeDisabled();
  await expect(page.getByRole("button", { name: /^Edit / }).first()).toBeDisabled();
  await snap(page, "viewer-flag");

  // Nothing the Viewer could reach changed the flag.
  const flag = await admin<{ environments: { name: string; enabled: boolean }[] }>(
    "GET",
    "/projects/default/features/viewer-visible",
  );
  expect(flag.environments.find((environment) => environment.name === "development")?.enabled).toBe(false);
});
