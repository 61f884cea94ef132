// Makes the embedded database's template for the installed PGlite, after the compiler has
// run (the package's build, and scripts/build.mjs): a first start lays it out instead of
// running initdb. Remade when PGlite or the migrations change; older versions' are removed.
import { readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { templateFile } from "../dist/db/embedded-template.js";

const db = fileURLToPath(new URL("../dist/db/", import.meta.url));
const inputs = [
  join(db, "migrate.js"),
  ...readdirSync(join(db, "migrations")).map((name) => join(db, "migrations", name)),
];
const file = templateFile();
const modified = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (modified(file) < Math.max(...inputs.map(modified))) {
  const { writeTemplate } = await import("../dist/db/prepare-template.js");
  await writeTemplate(file);
  for (const name of readdirSync(dirname(file))) {
    if (name !== basename(file)) rmSync(join(dirname(file), name), { recursive: true, force: true });
  }
  console.log(`made ${file}`);
}
