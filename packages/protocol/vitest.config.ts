import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  test: { name: "protocol", include: ["test/**/*.test.ts", "src/**/*.test.ts"], passWithNoTests: true },
});
