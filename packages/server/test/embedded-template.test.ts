import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterEach, describe, expect, inject, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { connect } from "../src/db/connection.js";
import { seedDataDir } from "../src/db/embedded-template.js";
import { startServer } from "../src/server.js";

// The run's template is made by the same function as the one the build ships.
const template = inject("pgliteTemplate");
const ADMIN = "*:*.template-admin";
const CLIENT = "default:development.template-client";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function folder() {
  const dir = await mkdtemp(join(tmpdir(), "signalbox-template-test-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const start = (dataDir: string) =>
  startServer(
    loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      INIT_ADMIN_API_TOKENS: ADMIN,
      INIT_CLIENT_API_TOKENS: CLIENT,
      UNLEASH_DEFAULT_ADMIN_USERNAME: "admin",
      UNLEASH_DEFAULT_ADMIN_PASSWORD: "template-test-password",
    }),
  );

async function get(url: string, token = ADMIN) {
  const response = await fetch(url, { headers: { authorization: token } });
  expect(response.status, url).toBe(200);
  return response.json();
}

// When a row was made differs between a template made at build time and a database made now.
const timeless = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, field) => (/^(createdAt|updatedAt)$/.test(key) ? "(time)" : field));

/** What a person sees of a new service's settings, and what an SDK gets. */
async function answers(url: string) {
  const paths = [
    "/api/admin/projects",
    "/api/admin/environments",
    "/api/admin/strategies",
    "/api/admin/context",
    "/api/admin/tag-types",
    "/api/admin/segments",
  ];
  const admin = await Promise.all(paths.map((path) => get(`${url}${path}`)));
  return timeless({ admin, client: await get(`${url}/api/client/features`, CLIENT) });
}

/** The migrations applied and every column of every table, read from the closed data folder. */
async function schema(dataDir: string) {
  const connection = await connect({ dataDir });
  try {
    const { rows: migrations } = await sql<{ name: string }>`
      select name from kysely_migration order by name
    `.execute(connection.db);
    const { rows: columns } = await sql`
      select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
      where table_schema = current_schema() order by table_name, column_name
    `.execute(connection.db);
    return { migrations: migrations.map((row) => row.name), columns };
  } finally {
    await connection.close();
  }
}

describe("a first start from the prepared database", () => {
  it("is migrated, answers as a start that initialised a new database does, and keeps its data", async () => {
    const prepared = await folder();
    expect(await seedDataDir(prepared, template)).toBe("template");
    const first = await start(prepared);
    const fromTemplate = await answers(first.url);
    const created = await fetch(`${first.url}/api/admin/projects/default/features`, {
      method: "POST",
      headers: { authorization: ADMIN, "content-type": "application/json" },
      body: JSON.stringify({ name: "kept-across-restarts" }),
    });
    expect(created.status).toBe(200);
    await first.close();

    const again = await start(prepared);
    const kept = (await get(`${again.url}/api/admin/projects/default/features/kept-across-restarts`)) as {
      name: string;
    };
    expect(kept.name).toBe("kept-across-restarts");
    await again.close();
    expect(await seedDataDir(prepared, template)).toBe("existing");

    // Run from the sources, the service has no template and initialises a database itself.
    const initialised = await folder();
    const normal = await start(initialised);
    expect(fromTemplate).toEqual(await answers(normal.url));
    await normal.close();

    const expected = (await readdir(join(import.meta.dirname, "../src/db/migrations")))
      .map((file) => file.replace(/\.ts$/, ""))
      .sort();
    const preparedSchema = await schema(prepared);
    expect(preparedSchema.migrations).toEqual(expected);
    expect(preparedSchema).toEqual(await schema(initialised));
  });

  it("lays out again on the next start when the last one was cut short", async () => {
    const archive = gunzipSync(await readFile(template));
    const cut = join(await folder(), "cut.tar.gz");
    await writeFile(cut, gzipSync(archive.subarray(0, archive.length / 2)));
    const dataDir = await folder();

    await expect(seedDataDir(dataDir, cut)).rejects.toThrow("the template ends in the middle of a file");
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false);

    expect(await seedDataDir(dataDir, template)).toBe("template");
    const server = await start(dataDir);
    expect(await get(`${server.url}/api/client/features`, CLIENT)).toMatchObject({ features: [] });
    await server.close();
  });

  it("refuses an archive entry that would land outside the data folder", async () => {
    const parent = await folder();
    const dataDir = join(parent, "data");
    const header = Buffer.alloc(512);
    header.write("../escaped", 0);
    header.write("00000000004", 124);
    header.write("0", 156);
    header.write("ustar\u000000", 257);
    const body = Buffer.concat([header, Buffer.from("oops"), Buffer.alloc(508 + 1024)]);
    const file = join(parent, "hostile.tar.gz");
    await writeFile(file, gzipSync(body));

    await expect(seedDataDir(dataDir, file)).rejects.toThrow("not part of a data folder");
    expect(existsSync(join(parent, "escaped"))).toBe(false);
  });
});
