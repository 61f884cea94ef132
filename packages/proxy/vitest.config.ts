import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  // Workspace packages are resolved for Node (SSR) too, so @signalbox/engine loads from source.
  ssr: { resolve: { conditions: ["signalbox-source"] } },
  test: {
    name: "proxy",
    include: ["test/**/*.test.ts"],
    // Above the 8 s that test helpers wait for an effect, so a slow machine reports what was missing.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // So a test can force a collection before it measures memory (report-limits.test.ts).
    execArgv: ["--expose-gc"],
  },
});
