// `npm run pack`: the packages a deployment installs, as npm tarballs in artifacts/. They are
// not published; `npm install --omit=dev artifacts/*.tgz` installs them, which is what the
// Dockerfile and `npm run test:package` do. Each package is packed from a copy of what it ships,
// so the repository's LICENSE goes into every tarball without a copy of it in each package.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildStale } from "./build.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

// Dependencies first, so a list of these tarballs reads in the order they build on each other.
const PACKAGES = ["protocol", "engine", "ui", "server", "proxy"];

const manifest = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

// One version for the product: a tarball asking for a sibling of another version would make
// npm look for it in the registry, where none of them is.
function checkVersions(manifests) {
  const version = manifests[0].version;
  const wrong = manifests.flatMap((pkg) => [
    ...(pkg.version === version ? [] : [`${pkg.name} is ${pkg.version}`]),
    ...Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies })
      .filter(([name, range]) => name.startsWith("@signalbox/") && range !== version)
      .map(([name, range]) => `${pkg.name} asks for ${name}@${range}`),
  ]);
  if (wrong.length > 0) throw new Error(`packages must all be ${version}: ${wrong.join("; ")}`);
}

/** Builds what is stale and packs every package into `out`; returns the tarballs' paths. */
export function pack(out = join(root, "artifacts")) {
  buildStale();
  const dirs = PACKAGES.map((name) => join(root, "packages", name));
  const manifests = dirs.map(manifest);
  checkVersions(manifests);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), "signalbox-pack-"));
  try {
    return dirs.map((dir, index) => {
      const stage = join(staging, PACKAGES[index]);
      mkdirSync(stage);
      for (const entry of ["package.json", "README.md", ...manifests[index].files]) {
        const from = join(dir, entry);
        if (existsSync(from)) cpSync(from, join(stage, entry), { recursive: true });
      }
      copyFileSync(join(root, "LICENSE"), join(stage, "LICENSE"));
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
          cwd: stage,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      return join(out, packed.filename);
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const tarball of pack()) console.log(tarball);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
