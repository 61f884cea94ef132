import { defineProject } from "vitest/config";

// The fast tier (`npm run test:fast`) runs a worker's files in threads that share loaded
// modules: each file makes its own database and server and keeps no module state of its own,
// and importing the service once a worker rather than once a file, in threads rather than
// processes, took its time from about 165 s to under 110 s here. The full run keeps every
// file in a process of its own, as the child-process tests and PostgreSQL runs were proven.
const fast = process.env.SIGNALBOX_TEST_TIER === "fast";

export default defineProject({
  resolve: { conditions: ["signalbox-source"] },
  ssr: { resolve: { conditions: ["signalbox-source"] } },
  test: {
    name: "server",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    ...(fast ? { pool: "threads", isolate: false } : {}),
  },
});
