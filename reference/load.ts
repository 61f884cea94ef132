// The reference packages live in reference/node_modules, outside the root workspaces, so
// a bare import from bench/ or differential/ would not find them: resolve them from this
// package instead. Callers describe the few members they use, so typechecking does not
// need reference/ installed.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

export type ReferencePackage = "unleash-server" | "@unleash/proxy";

export async function loadReference<T>(name: ReferencePackage): Promise<T> {
  const require = createRequire(new URL("./package.json", import.meta.url));
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(`${name} is not installed in reference/: run \`npm ci --prefix reference\` first`);
  }
  return (await import(pathToFileURL(entry).href)) as T;
}
