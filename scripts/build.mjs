// Builds what is out of date, and only that: the packages with the TypeScript compiler, then
// the web UI (its API client generated from the service's schemas, typechecked, bundled).
// `npm start` and the browser tests both start from here, so a warm start compiles nothing.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const packages = join(root, "packages");

const newest = (path) =>
  statSync(path).isDirectory()
    ? Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))))
    : statSync(path).mtimeMs;

const stale = (output, inputs) =>
  !existsSync(output) || statSync(output).mtimeMs < Math.max(...inputs.filter(existsSync).map(newest));

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`build failed: ${[command, ...args].join(" ")}`);
}

export function buildStale() {
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  for (const name of ["protocol", "engine", "server", "proxy"]) {
    const dir = join(packages, name);
    const inputs = ["src", "tsconfig.json", "tsconfig.build.json"].map((file) => join(dir, file));
    if (stale(join(dir, "dist", ".tsbuildinfo"), [...inputs, join(root, "tsconfig.base.json")])) {
      run(process.execPath, [tsc, "-p", join(dir, "tsconfig.build.json")]);
    }
  }
  // The embedded database's template, for the installed PGlite and the built migrations: the
  // script tells whether it is current (its name holds the PGlite version) and returns at once if so.
  run(process.execPath, [join(packages, "server", "scripts", "embedded-template.mjs")]);
  // The UI's client is typed from the service's routes: a changed schema rebuilds it too.
  const ui = join(packages, "ui");
  const inputs = [
    "src",
    "public",
    "scripts",
    "index.html",
    "vite.config.ts",
    "tsconfig.json",
    "package.json",
  ];
  if (
    stale(join(ui, "dist", "index.html"), [
      ...inputs.map((file) => join(ui, file)),
      // The guides the UI carries (scripts/guides-plugin.ts).
      join(root, "docs"),
      join(packages, "server", "src"),
    ])
  ) {
    run("npm", ["run", "build"], ui);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    buildStale();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
