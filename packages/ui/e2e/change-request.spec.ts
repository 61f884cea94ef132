import type { Browser, Page } from "@playwright/test";
import { nodeSdk } from "./support/sdk";
import { admin, expect, logIn, snap, test } from "./support/service";

// Unique per run: the service's data outlives a retried test.
const RUN = Date.now().toString(36);
const FLAG = `checkout-review-${RUN}`;
const AUTHOR = { username: `erin-${RUN}`, password: "Editor-a-secret-123" };
const REVIEWER = { username: `raj-${RUN}`, password: "Editor-b-secret-123" };
const CONFIG = "/projects/default/environments/production/change-requests/config";

async function personIn(browser: Browser, person: { username: string; password: string }): Promise<Page> {
  // A context of its own: its own cookies, so two people are logged in side by side.
  const page = await (await browser.newContext()).newPage();
  await logIn(page, person.username, person.password);
  return page;
}

test("a change to production is drafted, submitted, approved by someone else and applied before SDKs see it", async ({
  browser,
}) => {
  await admin("PUT", CONFIG, { changeRequestsEnabled: true, requiredApprovals: 1 });
  await admin("POST", "/projects/default/features", { name: FLAG });
  await admin("POST", `/projects/default/features/${FLAG}/environments/production/strategies`, {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: FLAG },
  });
  for (const person of [AUTHOR, REVIEWER]) {
    await admin("POST", "/user-admin", { ...person, rootRole: "Editor" });
  }
  const token = await admin<{ secret: string }>("POST", "/api-tokens", {
    tokenName: `production-${RUN}`,
    type: "client",
    environment: "production",
    projects: ["default"],
  });
  const sdk = await nodeSdk(token.secret);
  try {
    expect(sdk.isEnabled(FLAG)).toBe(false);

    // The author switches the flag on in production: it goes to their draft instead.
    const author = await personIn(browser, AUTHOR);
    await author.goto(`/projects/default/features/${FLAG}`);
    const production = author.getByRole("switch", { name: "Enabled in production" });
    await production.click();
    await expect(author.getByText(/Added to your draft for production/)).toBeVisible();
    await expect(production).not.toBeChecked();
    const banner = author.getByRole("alert", { name: "Draft for production" });
    await expect(banner).toContainText("You have 1 change in a draft for production");

    await banner.getByRole("link", { name: "Review changes" }).click();
    await expect(author).toHaveURL(/\/projects\/default\/change-requests\/\d+$/);
    const change = author.getByRole("article", { name: "Enable the flag in production" });
    const diff = change.getByRole("region", { name: "Changes: Enable the flag in production" });
    await expect(diff).toContainText(/-\s+"enabled": false/);
    await expect(diff).toContainText(/\+\s+"enabled": true/);
    await snap(author, "change-request-draft");

    await author.getByRole("button", { name: "Submit for review" }).click();
    await expect(author.getByText("In review", { exact: true })).toBeVisible();
    const ownApproval = author.getByRole("button", { name: "Approve" });
    await expect(ownApproval).toBeDisabled();
    await expect(ownApproval).toHaveAccessibleDescription("You cannot approve your own change request.");
    const requestUrl = author.url();

    // The author asks the other Editor, one of those who may approve in production, to review it.
    const picker = author.getByRole("combobox", { name: "Ask to review" });
    await picker.click();
    await author.getByRole("option", { name: REVIEWER.username, exact: true }).click();
    await picker.press("Escape");
    await author.getByRole("button", { name: "Save reviewers" }).click();
    await expect(author.getByRole("list", { name: "Reviewers asked" })).toContainText(REVIEWER.username);

    // The reviewer sees it waiting for them, and approves it.
    const reviewer = await personIn(browser, REVIEWER);
    const badge = reviewer.getByLabel("1 awaiting your review");
    await expect(badge).toBeVisible();
    await reviewer.getByRole("link", { name: /^Change requests/ }).click();
    const awaiting = reviewer.getByRole("table", { name: "Awaiting your review" });
    await expect(awaiting).toContainText(FLAG);
    await snap(reviewer, "change-requests-awaiting-review");
    await awaiting.getByRole("link", { name: /^Change request #\d+$/ }).click();
    await expect(reviewer).toHaveURL(requestUrl);
    await reviewer.getByRole("button", { name: "Approve" }).click();
    await expect(reviewer.getByText("Approved", { exact: true })).toBeVisible();
    await expect(reviewer.getByRole("list", { name: "Approved by" })).toContainText(REVIEWER.username);
    await expect(badge).toBeHidden();
    await snap(reviewer, "change-request-approved");

    // Approved is not applied: SDKs still have the flag off.
    await new Promise((done) => setTimeout(done, 1500));
    expect(sdk.isEnabled(FLAG)).toBe(false);

    // The author applies it.
    await author.reload();
    await author.getByRole("button", { name: "Apply changes" }).click();
    await expect(author.getByText("Applied", { exact: true })).toBeVisible();
    await snap(author, "change-request-applied");
    await expect.poll(() => sdk.isEnabled(FLAG), { timeout: 10_000 }).toBe(true);

    await author.goto(`/projects/default/features/${FLAG}`);
    await expect(author.getByRole("switch", { name: "Enabled in production" })).toBeChecked();
    await expect(author.getByRole("alert", { name: "Draft for production" })).toHaveCount(0);
  } finally {
    sdk.destroy();
    // The other flows change production in the default project directly.
    await admin("PUT", CONFIG, { changeRequestsEnabled: false });
  }
});
