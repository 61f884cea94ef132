// `npm test`: builds what is out of date (tests that start the service in processes of their
// own run the build, as the browser tests do), then every Vitest project, then the browser
// tests whatever Vitest found, so that a failure in one never hides what the other would have
// found; fails when either failed.
// `npm run test:fast` (--fast): the inner loop. Each package's own Vitest tests on the embedded
// database alone, without the tests below, the cross-package flows of e2e/, the build or the
// browser; arguments after `--` go to Vitest.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { buildStale } from "./build.mjs";

// What a fast run leaves out: tests that start the service, the proxy or a command in processes
// of their own, the fuzz test, the sweeps of every route (permissions, objects, declared
// errors), the embedded template's build and the addon deliveries that wait out real retries. Vitest matches each against the files of every project,
// relative to the project's folder.
const SLOW = [
  "test/startup.test.ts",
  "test/outbox.test.ts",
  "test/oidc.test.ts",
  "test/import-export-cli.test.ts",
  "test/compare-cli.test.ts",
  "test/fuzz.test.ts",
  "test/object-access.test.ts",
  "test/access-matrix.test.ts",
  "test/openapi.test.ts",
  "test/embedded-template.test.ts",
  "test/addons-delivery.test.ts",
  "test/cli.test.ts",
];

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
const run = (command, args, env = process.env) =>
  spawnSync(command, args, { stdio: "inherit", env }).status ?? 1;

const [mode, ...rest] = process.argv.slice(2);
if (mode === "--fast") {
  const { DATABASE_URL: _postgres, ...env } = process.env;
  const excluded = SLOW.flatMap((pattern) => ["--exclude", pattern]);
  // A worker per core rather than Vitest's one fewer: with two cores, that is two files at a
  // time rather than one, and the main process has little to do.
  const packages = ["server", "proxy", "engine", "protocol", "ui"].flatMap((name) => ["--project", name]);
  const args = ["run", "--maxWorkers=100%", ...packages, ...excluded, ...rest];
  process.exit(run(process.execPath, [vitest, ...args], { ...env, SIGNALBOX_TEST_TIER: "fast" }));
}

try {
  buildStale();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const unit = run(process.execPath, [vitest, "run"]);
const browser = run("npm", ["run", "test:browser"]);
process.exit(unit || browser);
