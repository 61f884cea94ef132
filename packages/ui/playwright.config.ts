import { defineConfig } from "@playwright/test";

// The browser flows: Debian's Chromium (nothing is downloaded) driving the built UI, served
// by a real service on the embedded database that global-setup starts.
export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  // One service, one browser at a time: two cores, and flows that share the service's data.
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["./e2e/support/summary-reporter.ts"]],
  globalSetup: "./e2e/support/global-setup.ts",
  use: {
    viewport: { width: 1400, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      // Without these Chromium keeps trying to reach Google's services, which this machine cannot.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
