import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { guideTitle } from "../src/guides/markdown";
import { ADMIN_PASSWORD, admin, expect, logIn, serviceUrl, snap, test } from "./support/service";

const docs = fileURLToPath(new URL("../../../docs/", import.meta.url));
const titleOf = (name: string) => guideTitle(readFileSync(`${docs}/${name}.md`, "utf8")) ?? name;

/** Makes an API token on the API tokens page and returns the dialog that shows its secret. */
async function newToken(page: Page, name: string, type?: string) {
  await page.goto("/api-tokens");
  await page.getByRole("button", { name: "New API token" }).click();
  const dialog = page.getByRole("dialog", { name: "New API token" });
  await dialog.getByRole("textbox", { name: "Token name" }).fill(name);
  if (type) {
    await dialog.getByRole("combobox", { name: "Type" }).click();
    await page.getByRole("option", { name: type }).click();
  }
  await dialog.getByRole("button", { name: "Create token" }).click();
  await expect(dialog.getByRole("textbox", { name: "Secret" })).toBeVisible();
  return dialog;
}

/** Runs code as an application would, from a file, and returns the first line it prints. */
async function firstLineOf(code: string, path: string): Promise<string> {
  await writeFile(path, code);
  // Playwright forces colours on, which would dress what console.log prints in escape codes.
  const { FORCE_COLOR: _colours, ...env } = process.env;
  const child = spawn(process.execPath, [path], { env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    return await new Promise<string>((resolve, reject) => {
      let printed = "";
      child.stdout.on("data", (chunk) => {
        printed += chunk;
        if (printed.includes("\n")) resolve(printed.split("\n")[0] ?? "");
      });
      child.once("exit", (code) =>
        reject(new Error(`the snippet exited with ${code} having printed nothing`)),
      );
    });
  } finally {
    child.kill();
  }
}

test.describe("connecting an SDK", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("a new backend token comes with Node.js code holding its secret, and that code reads the flags", async ({
    page,
  }, testInfo) => {
    await admin("POST", "/projects/default/features", { name: "connect-sdk-check" });
    await admin("POST", "/projects/default/features/connect-sdk-check/environments/development/strategies", {
      name: "default",
    });
    await admin("POST", "/projects/default/features/connect-sdk-check/environments/development/on");

    await logIn(page, "admin", ADMIN_PASSWORD);
    const dialog = await newToken(page, "connect-node");
    const secret = await dialog.getByRole("textbox", { name: "Secret" }).inputValue();
    const panel = dialog.getByRole("region", { name: "Connect an SDK" });
    await expect(panel.getByRole("tab", { name: "Node.js", selected: true })).toBeVisible();
    const code = panel.getByLabel("Node.js code");
    await expect(code).toContainText(`Authorization: "${secret}"`);
    await expect(code).toContainText(`url: "${serviceUrl()}/api"`);
    await expect(panel.getByLabel("Node.js install command")).toHaveText("npm install unleash-client");
    await snap(page, "connect-sdk");

    await panel.getByRole("button", { name: "Copy the Node.js code" }).click();
    await expect(panel.getByRole("button", { name: "Copied" })).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await code.textContent());
    // The code as copied, run as an application, sees the flag: the address and token are right.
    const run = copied.replace('"my-flag"', '"connect-sdk-check"');
    expect(await firstLineOf(run, testInfo.outputPath("connect.mjs"))).toBe("true");

    // A backend token never goes into a browser.
    await panel.getByRole("tab", { name: "Browser" }).click();
    await expect(panel.getByText("A browser takes a frontend token.")).toBeVisible();
    await expect(panel.getByText(secret)).toHaveCount(0);
  });

  test("a frontend token gets the browser and OpenFeature code, and no server SDK", async ({ page }) => {
    await logIn(page, "admin", ADMIN_PASSWORD);
    const dialog = await newToken(page, "connect-browser", "Frontend: for browser and mobile SDKs");
    const secret = await dialog.getByRole("textbox", { name: "Secret" }).inputValue();
    const panel = dialog.getByRole("region", { name: "Connect an SDK" });
    await expect(panel.getByRole("tab", { name: "Browser", selected: true })).toBeVisible();
    await expect(panel.getByLabel("Browser code")).toContainText(`clientKey: "${secret}"`);
    await expect(panel.getByLabel("Browser code")).toContainText(`url: "${serviceUrl()}/api/frontend"`);

    await panel.getByRole("tab", { name: "OpenFeature" }).click();
    await expect(panel.getByLabel("OpenFeature web install command")).toContainText(
      "@openfeature/ofrep-web-provider",
    );
    await expect(panel.getByLabel("OpenFeature web code")).toContainText(`["Authorization", "${secret}"]`);
    await expect(panel.getByLabel("OpenFeature server code")).toContainText(`baseUrl: "${serviceUrl()}"`);

    await panel.getByRole("tab", { name: "Node.js" }).click();
    await expect(panel.getByText("Server SDKs take a backend token")).toBeVisible();
    await expect(panel.getByLabel("Node.js code")).toHaveCount(0);
  });

  test("an admin token is not offered to any SDK", async ({ page }) => {
    await logIn(page, "admin", ADMIN_PASSWORD);
    const dialog = await newToken(
      page,
      "connect-admin",
      "Admin: for scripts calling the admin API, everywhere",
    );
    const panel = dialog.getByRole("region", { name: "Connect an SDK" });
    await expect(panel.getByText("SDKs do not take admin tokens")).toBeVisible();
    await expect(panel.getByRole("tab")).toHaveCount(0);
  });

  test("an empty project shows how to connect, with a stand-in for the token and where to make one", async ({
    page,
  }) => {
    await admin("POST", "/projects", { id: "connect-empty", name: "Connect empty" });
    await admin("POST", "/projects", { id: "connect-full", name: "Connect full" });
    await admin("POST", "/projects/connect-full/features", { name: "connect-full-flag" });

    await logIn(page, "admin", ADMIN_PASSWORD);
    await page.goto("/projects/connect-empty");
    const panel = page.getByRole("region", { name: "Connect an SDK" });
    await expect(panel.getByLabel("Node.js code")).toContainText('Authorization: "<your backend token>"');
    await expect(panel.getByLabel("Node.js code")).toContainText(`url: "${serviceUrl()}/api"`);
    await panel.getByRole("link", { name: "Create an API token" }).click();
    await expect(page).toHaveURL(/\/api-tokens$/);

    await page.goto("/projects/connect-full");
    await expect(page.getByRole("link", { name: "connect-full-flag" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Connect an SDK" })).toHaveCount(0);
  });
});

test("the help menu opens the API reference and each guide, readable in the page", async ({ page }) => {
  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Help" }).click();
  await expect(page.getByRole("menuitem", { name: "API reference" })).toHaveAttribute("href", "/docs/");
  const guides = readdirSync(docs)
    .filter((file) => file.endsWith(".md"))
    .map((file) => titleOf(file.slice(0, -".md".length)));
  for (const title of guides) await expect(page.getByRole("menuitem", { name: title })).toBeVisible();

  await page.getByRole("menuitem", { name: titleOf("production") }).click();
  await expect(page).toHaveURL(/\/guides\/production$/);
  await expect(page.getByRole("heading", { level: 1, name: titleOf("production") })).toBeVisible();
  await snap(page, "guide");

  await page.goto("/guides/no-such-guide");
  await expect(page.getByText("No such guide")).toBeVisible();
});

test("an integration's Documentation link opens Signalbox's guide at that integration", async ({ page }) => {
  await logIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/integrations");
  await page.getByRole("button", { name: "Configure Webhook" }).click();
  const link = page.getByRole("dialog", { name: "New Webhook integration" }).getByRole("link", {
    name: "Documentation",
  });
  await expect(link).toHaveAttribute("href", "/guides/integrations#webhook");
  await page.goto("/guides/integrations#webhook");
  await expect(page.getByRole("heading", { level: 2, name: "Webhook", exact: true })).toBeInViewport();
  // A guide's link to another guide opens it in the UI.
  await page.getByRole("link", { name: "migration guide" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: titleOf("migrating-from-unleash") }),
  ).toBeVisible();
});

test("the API reference is Signalbox's page", async ({ page }) => {
  await page.goto("/docs/");
  await expect(page).toHaveTitle("Signalbox API reference");
  await expect(page.locator(".topbar img")).toHaveAttribute("src", /^data:image\/svg\+xml;base64,/);
  await snap(page, "api-reference");
  await expect(page.getByRole("heading", { name: /Signalbox flag service/ })).toBeVisible();
});
