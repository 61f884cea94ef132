import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { defaultConfig } from "../src/config.js";
import { freshDatabase } from "./support/database.js";

// A build of the UI as Vite lays it out: index.html, a hashed asset, a file at the root.
let dir: string;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "signalbox-ui-"));
  await mkdir(join(dir, "assets"));
  await writeFile(join(dir, "index.html"), "<!doctype html><title>Signalbox</title>");
  await writeFile(join(dir, "assets", "index-abc123.js"), "console.log('ui')");
  await writeFile(join(dir, "assets", "index-abc123.js.gz"), gzipSync("console.log('ui')"));
  await writeFile(join(dir, "favicon.svg"), "<svg/>");
  const connection = await freshDatabase("pglite");
  const { app } = await buildApp(defaultConfig({ logLevel: "silent", uiDir: dir }), connection.db);
  url = await app.listen({ port: 0, host: "127.0.0.1" });
  close = async () => {
    await app.close();
    await connection.close();
    await rm(dir, { recursive: true });
  };
});
afterAll(() => close());

const page = (path: string) => fetch(`${url}${path}`, { headers: { accept: "text/html,*/*" } });

describe("the web UI", () => {
  it("is served at / without credentials", async () => {
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(await response.text()).toContain("<title>Signalbox</title>");
  });

  it("caches hashed assets for good and other files not at all", async () => {
    const asset = await fetch(`${url}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await asset.text()).toBe("console.log('ui')");
    expect((await fetch(`${url}/favicon.svg`)).headers.get("cache-control")).toBe("no-cache");
  });

  it("sends the build's compressed copy to browsers that accept it", async () => {
    const gzip = await fetch(`${url}/assets/index-abc123.js`, { headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(gzip.headers.get("vary")).toContain("accept-encoding");
    expect(await gzip.text()).toBe("console.log('ui')");
    const plain = await fetch(`${url}/assets/index-abc123.js`, {
      headers: { "accept-encoding": "identity" },
    });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe("console.log('ui')");
    expect((await fetch(`${url}/assets/index-abc123.js.gz`)).status).toBe(404);
  });

  it("answers a browser's deep link with the page, so a reload opens that screen", async () => {
    const response = await page("/projects/default/features/new-checkout");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<title>Signalbox</title>");
  });

  it("leaves the service's paths to the service, for browsers too", async () => {
    for (const path of ["/api/admin/nothing-here", "/auth/nothing", "/docs/nothing", "/logout/x"]) {
      const response = await page(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ name: "NotFoundError" });
    }
    const unauthenticated = await page("/api/admin/projects");
    expect(unauthenticated.status).toBe(401);
  });

  it("answers scripts asking for unknown paths with the API's 404, as before", async () => {
    const response = await fetch(`${url}/projects/default`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ name: "NotFoundError" });
  });

  it("is absent when the folder holds no build: the API alone", async () => {
    const connection = await freshDatabase("pglite");
    const empty = await mkdtemp(join(tmpdir(), "signalbox-no-ui-"));
    const { app } = await buildApp(defaultConfig({ logLevel: "silent", uiDir: empty }), connection.db);
    try {
      const response = await app.inject({ url: "/", headers: { accept: "text/html" } });
      expect(response.statusCode).toBe(404);
    } finally {
      await app.close();
      await connection.close();
      await rm(empty, { recursive: true });
    }
  });
});
