import { ADMIN_PASSWORD, admin, CLIENT_TOKEN, expect, logIn, serviceUrl, test } from "./support/service";

/** The rollout the SDK document gives the flag in development. */
async function servedRollout(flag: string): Promise<string | undefined> {
  const response = await fetch(`${serviceUrl()}/api/client/features/${flag}`, {
    headers: { authorization: CLIENT_TOKEN },
  });
  const body = (await response.json()) as { strategies: { parameters: { rollout?: string } }[] };
  return body.strategies[0]?.parameters.rollout;
}

test("a person restores an earlier version of a flag from its history, seeing what changes first", async ({
  page,
}) => {
  const flag = "restorable";
  const place = `/projects/default/features/${flag}/environments/development`;
  await admin("POST", "/projects/default/features", { name: flag });
  const strategy = await admin<{ id: string }>("POST", `${place}/strategies`, {
    name: "flexibleRollout",
    parameters: { rollout: "10", stickiness: "default" },
  });
  await admin("POST", `${place}/on`);
  await admin("PUT", `${place}/strategies/${strategy.id}`, {
    name: "flexibleRollout",
    parameters: { rollout: "75", stickiness: "default" },
  });
  expect(await servedRollout(flag)).toBe("75");
  const { versions } = await admin<{ versions: { eventId: number; type: string }[] }>(
    "GET",
    `/projects/default/features/${flag}/versions`,
  );
  // Newest first: the update, then switching on, when the rollout was 10%.
  const switchedOn = versions.find((version) => version.type === "feature-environment-enabled")!;

  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto(`/projects/default/features/${flag}?tab=history`);
  const table = page.getByRole("table", { name: "Versions" });
  await expect(table.getByText("current")).toBeVisible();
  await table.getByRole("button", { name: `Restore version ${switchedOn.eventId}` }).click();

  const dialog = page.getByRole("dialog", { name: "Restore this version" });
  await expect(dialog.getByRole("list", { name: "Changes in development" })).toContainText("flexibleRollout");
  // The diff shows the rollout going back.
  await expect(dialog.getByText('"rollout": "10"')).toBeVisible();
  await dialog.getByRole("combobox", { name: "What to restore" }).click();
  await page.getByRole("option", { name: "Only production" }).click();
  await expect(dialog.getByText("there is nothing to change")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Restore this version" })).toBeDisabled();
  await dialog.getByRole("combobox", { name: "What to restore" }).click();
  await page.getByRole("option", { name: "The whole flag" }).click();
  await dialog.getByRole("button", { name: "Restore this version" }).click();
  await expect(page.getByText("Restored: the flag serves that version again.")).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(await servedRollout(flag)).toBe("10");

  // The restore is a version too, and undoing it brings 75% back.
  await expect(table.getByRole("row").nth(1)).toContainText("version restored");
  const undo = table
    .getByRole("row")
    .nth(2)
    .getByRole("button", { name: /^Restore version/ });
  await undo.click();
  await dialog.getByRole("button", { name: "Restore this version" }).click();
  await expect(dialog).toBeHidden();
  expect(await servedRollout(flag)).toBe("75");
});
