import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  ssr: { resolve: { conditions: ["signalbox-source"] } },
  test: {
    name: "server",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
