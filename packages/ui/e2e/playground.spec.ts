import { ADMIN_PASSWORD, admin, expect, logIn, snap, test } from "./support/service";

test("the playground says why a flag is off: a constraint that failed, with the value compared, and an environment switched off", async ({
  page,
}) => {
  const development = "/projects/default/features/dark-mode/environments/development";
  await admin("POST", "/projects/default/features", { name: "dark-mode" });
  await admin("POST", `${development}/strategies`, {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "dark-mode" },
    constraints: [{ contextName: "userId", operator: "IN", values: ["alice"] }],
  });
  await admin("POST", `${development}/on`);
  await admin("POST", "/projects/default/features", { name: "beta-banner" });
  await admin("POST", "/projects/default/features/beta-banner/environments/development/strategies", {
    name: "default",
  });

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("link", { name: "Playground" }).click();
  // The first environment, development, is chosen for a first visit.
  await expect(page.getByRole("form", { name: "Playground" })).toContainText("development");
  await page.getByRole("textbox", { name: "User ID" }).fill("bob");
  await page.getByRole("button", { name: "Evaluate" }).click();

  const results = page.getByRole("table", { name: "Playground results" });
  await expect(results.getByRole("row", { name: /dark-mode/ })).toContainText("Off");
  await page.getByRole("button", { name: "Why dark-mode" }).click();
  const darkMode = page.getByRole("region", { name: "Why dark-mode is on or off" });
  await expect(darkMode).toContainText("userId");
  await expect(darkMode).toContainText("bob");
  await expect(darkMode).toContainText("Failed");
  await snap(page, "playground");

  await page.getByRole("button", { name: "Why beta-banner" }).click();
  await expect(page.getByRole("region", { name: "Why beta-banner is on or off" })).toContainText(
    "Disabled in this environment",
  );

  // The question is in the address: a reload asks it again.
  await page.reload();
  await expect(page.getByRole("textbox", { name: "User ID" })).toHaveValue("bob");
  await expect(results.getByRole("row", { name: /dark-mode/ })).toContainText("Off");
});
