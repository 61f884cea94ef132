import { defineConfig } from "vitest/config";

// One run covers every package; each package is its own project so its tests can
// carry their own setup. `signalbox-source` makes workspace imports resolve to the
// TypeScript sources, so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ["signalbox-source"] },
  ssr: { resolve: { conditions: ["signalbox-source"] } },
  test: {
    projects: ["packages/*", "e2e"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
