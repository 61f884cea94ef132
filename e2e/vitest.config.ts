import { defineProject } from "vitest/config";

// End-to-end flows across packages over real HTTP: the service and the proxy meet here,
// as in a deployment, and never import each other.
export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  ssr: { resolve: { conditions: ["signalbox-source"] } },
  test: { name: "e2e", include: ["*.test.ts"], testTimeout: 30_000, hookTimeout: 60_000 },
});
