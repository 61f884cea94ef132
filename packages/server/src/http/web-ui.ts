import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "./app-type.js";

// Paths the service answers itself: a browser asking for one of these gets the API's answer
// (a JSON 404 included), never the UI's page.
const SERVICE_PATHS = /^\/(api|auth|docs|internal-backstage|health|logout)(\/|$|\?)/;

/** Where the built UI is and how to answer a browser's navigation to one of its pages. */
export interface WebUi {
  /** Answers a page the UI routes itself (a deep link), or returns false when it is not one. */
  page(request: FastifyRequest, reply: FastifyReply): boolean;
}

/**
 * Serves the built web UI from `dir`: each file a public route, hashed assets cached for
 * good, and `index.html` for any other page a browser navigates to, so that a reloaded deep
 * link (`/projects/default/features/x`) opens that screen. Returns undefined, serving
 * nothing, when the folder holds no build.
 */
export async function registerWebUi(app: App, dir: string | undefined): Promise<WebUi | undefined> {
  if (!dir || !existsSync(join(dir, "index.html"))) return undefined;
  // The build writes .br and .gz beside each large file: sent to browsers that accept them.
  await app.register(fastifyStatic, { root: dir, serve: false, preCompressed: true });
  for (const file of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!file.isFile() || /\.(br|gz)$/.test(file.name)) continue;
    const path = join(file.parentPath, file.name)
      .slice(dir.length + 1)
      .replaceAll("\\", "/");
    // Vite names every asset by its content hash: a new build is a new name.
    const cache = path.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache";
    app.get(
      path === "index.html" ? "/" : `/${path}`,
      { config: { auth: "public" }, schema: { hide: true } },
      (_request, reply) => reply.header("cache-control", cache).sendFile(path, { cacheControl: false }),
    );
  }
  return {
    page(request, reply) {
      const navigation = request.method === "GET" && request.headers.accept?.includes("text/html");
      if (!navigation || SERVICE_PATHS.test(request.url)) return false;
      void reply
        .header("cache-control", "no-cache")
        .type("text/html")
        .sendFile("index.html", { cacheControl: false });
      return true;
    },
  };
}
