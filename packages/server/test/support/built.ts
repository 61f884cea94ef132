import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Tests that start the service or the `signalbox` command in processes of their own run
// the build, as an operator does, rather than compile the sources in every child. CI builds
// before it tests, and `npm test` builds whatever is out of date first.
const dist = new URL("../../dist/", import.meta.url);

/** The path of a module of the server's build, or a failure that says how to make it. */
export function built(file: string): string {
  const path = fileURLToPath(new URL(file, dist));
  if (!existsSync(path)) {
    throw new Error(
      `${path} does not exist: this test runs the built server; build it with node scripts/build.mjs`,
    );
  }
  return path;
}
