import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  test: { name: "engine", include: ["test/**/*.test.ts", "src/**/*.test.ts"] },
});
