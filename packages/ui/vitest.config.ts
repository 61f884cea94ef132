import react from "@vitejs/plugin-react";
import { defineProject } from "vitest/config";

// Component tests of the editors that hold logic, in jsdom; the browser flows are Playwright's (e2e/).
export default defineProject({
  plugins: [react()],
  test: {
    name: "ui",
    include: ["src/**/*.test.tsx", "src/**/*.test.ts"],
    environment: "jsdom",
    setupFiles: ["test/setup.ts"],
    testTimeout: 20_000,
  },
});
