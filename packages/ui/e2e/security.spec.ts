import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ADMIN_PASSWORD, admin, expect, logIn, serviceUrl, test } from "./support/service";

/**
 * A page on another port of 127.0.0.1, where the service is: another origin, but the same
 * site, so the browser sends the SameSite=Lax session cookie with what it asks.
 */
async function siblingPage(html: string) {
  const server = createServer((_request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(`<!doctype html><title>sibling</title>${html}`);
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

const developmentEnabled = async (flag: string) => {
  const { environments } = await admin<{ environments: { name: string; enabled: boolean }[] }>(
    "GET",
    `/projects/default/features/${flag}`,
  );
  return environments.find((environment) => environment.name === "development")?.enabled;
};

test("a page on another port cannot switch a flag on with the person's session", async ({ page }) => {
  await admin("POST", "/projects/default/features", { name: "sibling-target" });
  await logIn(page, "admin", ADMIN_PASSWORD);
  const target = `${serviceUrl()}/api/admin/projects/default/features/sibling-target/environments/development/on`;
  const sibling = await siblingPage(`<script>
    fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include" })
      .then(() => { document.title = "sent"; }, (error) => { document.title = "failed: " + error; });
  </script>`);
  try {
    const sent = page.waitForRequest(target);
    await page.goto(sibling.url);
    await sent;
    // Settled either way: the answer is opaque to the page, or withheld from it altogether
    // (Cross-Origin-Resource-Policy), but only once the service has handled the request.
    await expect(page).toHaveTitle(/^(sent|failed)/);
  } finally {
    sibling.close();
  }
  expect(await developmentEnabled("sibling-target")).toBe(false);
});

test("a page on another port cannot show the logged-in UI in a frame", async ({ browser }) => {
  // A page of its own: the frame's refusal is a policy violation this test expects.
  const context = await browser.newContext({ baseURL: serviceUrl() });
  const page = await context.newPage();
  const refusals: string[] = [];
  page.on("console", (message) => {
    if (message.text().includes("frame-ancestors")) refusals.push(message.text());
  });
  await logIn(page, "admin", ADMIN_PASSWORD);
  const sibling = await siblingPage(
    `<iframe src="${serviceUrl()}/projects" width="800" height="600"></iframe>`,
  );
  try {
    await page.goto(sibling.url);
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    await expect(page.frameLocator("iframe").getByRole("table", { name: "Projects" })).toHaveCount(0);
  } finally {
    sibling.close();
    await context.close();
  }
});

test("the API documentation works under its content security policy", async ({ page }) => {
  await page.goto("/docs/");
  await expect(page.getByRole("heading", { name: /Signalbox flag service/ })).toBeVisible();
  await expect(page.getByText("/api/client/features").first()).toBeVisible();
});
