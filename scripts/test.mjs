// `npm test`: every Vitest project, then the browser tests whatever Vitest found, so that a
// failure in one never hides what the other would have found; fails when either failed.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");

const run = (command, args) => spawnSync(command, args, { stdio: "inherit" }).status ?? 1;
const unit = run(process.execPath, [vitest, "run"]);
const browser = run("npm", ["run", "test:browser"]);
process.exit(unit || browser);
