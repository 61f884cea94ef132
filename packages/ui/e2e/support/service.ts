import { fileURLToPath } from "node:url";
import { test as base, expect, type Page } from "@playwright/test";

export const ADMIN_TOKEN = "*:*.ui-e2e-admin";
export const CLIENT_TOKEN = "*:development.ui-e2e-client";
export const ADMIN_PASSWORD = "Ui-e2e-secret-123";
/** How long a release plan's transition "minute" lasts in the service under test. */
export const RELEASE_MINUTE_MS = 2_000;

/** The service global-setup started. */
export const serviceUrl = () => {
  const url = process.env.SIGNALBOX_URL;
  if (!url) throw new Error("SIGNALBOX_URL is not set: run these tests through playwright.config.ts");
  return url;
};

/** Calls the admin API as a script would, to set up what a flow starts from. */
export async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${serviceUrl()}/api/admin${path}`, {
    method,
    headers: {
      authorization: ADMIN_TOKEN,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Reports a counter's increase as an SDK does, inside its usage metrics (with the client token). */
export async function reportCounter(
  appName: string,
  name: string,
  value: number,
  help = name,
): Promise<void> {
  const response = await fetch(`${serviceUrl()}/api/client/metrics`, {
    method: "POST",
    headers: { authorization: CLIENT_TOKEN, "content-type": "application/json" },
    body: JSON.stringify({
      appName,
      instanceId: `${appName}-1`,
      environment: "development",
      bucket: null,
      impactMetrics: [{ name, help, type: "counter", samples: [{ labels: { appName }, value }] }],
    }),
  });
  if (!response.ok) throw new Error(`reporting ${name}: ${response.status} ${await response.text()}`);
}

/** Logs in through the login page, as a person does. */
export async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Username or email").fill(username);
  await page.getByRole("textbox", { name: "Password" }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("button", { name: /^Account of/ })).toBeVisible();
}

const VIOLATION = "Content Security Policy violation:";

/**
 * Every test talks to the service global-setup started, and fails on anything the service's
 * content security policy blocked: the UI must work under it, not around it.
 */
export const test = base.extend({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  baseURL: async ({}, use) => use(serviceUrl()),
  page: async ({ page }, use) => {
    const violations: string[] = [];
    // Chromium reports a violation on the console; the page's own event names the directive.
    await page.addInitScript((prefix) => {
      document.addEventListener("securitypolicyviolation", (event) =>
        console.error(`${prefix} ${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`),
      );
    }, VIOLATION);
    page.on("console", (message) => {
      const text = message.text();
      if (text.startsWith(VIOLATION) || text.includes("Content Security Policy directive")) {
        violations.push(`${page.url()}: ${text}`);
      }
    });
    await use(page);
    expect(violations, "what the content security policy blocked").toEqual([]);
  },
});
export { expect };

/** A picture of a screen for people to look at (kept out of git, in packages/ui/screenshots/). */
export async function snap(page: Page, name: string): Promise<void> {
  // A picture of a screen still loading shows nothing of it.
  await page.waitForLoadState("networkidle");
  const path = fileURLToPath(new URL(`../../screenshots/${name}.png`, import.meta.url));
  await page.screenshot({ path, fullPage: true });
}
