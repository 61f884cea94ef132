import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { buildApp } from "./app.js";
import { defaultConfig } from "./config.js";
import type { Database } from "./db/schema.js";

/**
 * The OpenAPI document of every route, made without a database or a socket: what API
 * clients (the web UI's among them) are generated from. Building the app issues no query,
 * and a pool that is never asked for a connection never opens one.
 */
export async function openApiDocument(): Promise<unknown> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool() }) });
  const { app } = await buildApp(defaultConfig({ logLevel: "silent", uiDir: undefined }), db);
  try {
    return app.swagger();
  } finally {
    await app.close();
    await db.destroy();
  }
}
