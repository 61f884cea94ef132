import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "vite";
import { guideTitle } from "../src/guides/markdown";

const MODULE = "virtual:guides";
const RESOLVED = `\0${MODULE}`;

/**
 * The guides of `dir` (the repository's docs/*.md) in the UI: each copied into the build as
 * `guides/<name>.md`, which the service then serves like any other file of the UI (so an
 * installed package has them too), and their names and titles as the module `virtual:guides`
 * for the help menu. The dev server serves them from `dir` as they are edited.
 */
export function guides(dir: string): Plugin {
  const files = () =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((file) => file.endsWith(".md"))
          .sort()
      : [];
  return {
    name: "signalbox-guides",
    resolveId: (id) => (id === MODULE ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined;
      const list = files().map((file) => {
        const path = join(dir, file);
        this.addWatchFile(path);
        const name = file.slice(0, -".md".length);
        return { name, title: guideTitle(readFileSync(path, "utf8")) ?? name };
      });
      return `export default ${JSON.stringify(list)};`;
    },
    generateBundle() {
      for (const file of files()) {
        this.emitFile({ type: "asset", fileName: `guides/${file}`, source: readFileSync(join(dir, file)) });
      }
    },
    configureServer(server) {
      server.middlewares.use("/guides", (request, response, next) => {
        const file = /^\/([\w-]+\.md)$/.exec(request.url ?? "")?.[1];
        if (!file || !files().includes(file)) return next();
        response.setHeader("content-type", "text/markdown; charset=utf-8");
        response.end(readFileSync(join(dir, file)));
      });
    },
  };
}
