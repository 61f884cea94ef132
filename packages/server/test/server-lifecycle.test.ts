import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";
import { connect } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { startServer } from "../src/server.js";
import { withDatabase } from "./support/global-setup.js";

const get = (url: string, token: string) => fetch(url, { headers: { authorization: token } });

describe("configuration", () => {
  it("names every bad variable at once", () => {
    const attempt = () =>
      loadConfig({
        PORT: "eighty",
        LOG_LEVEL: "loud",
        DATABASE_URL: "mysql://x",
        INIT_ADMIN_API_TOKENS: "nope",
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      for (const name of ["PORT", "LOG_LEVEL", "DATABASE_URL", "INIT_ADMIN_API_TOKENS"]) {
        expect((error as Error).message).toContain(name);
      }
      // A malformed token is still a secret: the message says which entry, not what it holds.
      expect((error as Error).message).not.toContain("nope");
    }
  });

  it("reads the documented defaults and the token aliases", () => {
    const config = loadConfig({
      INIT_BACKEND_API_TOKENS: "default:production.abc",
      INIT_CLIENT_API_TOKENS: "*:development.def",
    });
    expect(config).toMatchObject({ port: 4242, bodyLimit: 102400, databaseUrl: undefined });
    expect(config.initTokens.client).toEqual(["*:development.def", "default:production.abc"]);
  });
});

describe("starting the service", () => {
  it("creates the initial tokens on the embedded database and keeps its data across restarts", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "signalbox-data-"));
    const env = {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      INIT_ADMIN_API_TOKENS: "*:*.admin-secret",
      INIT_CLIENT_API_TOKENS: "*:development.client-secret",
    };
    try {
      const first = await startServer(loadConfig(env));
      const created = await fetch(`${first.url}/api/admin/api-tokens`, {
        method: "POST",
        headers: { authorization: "*:*.admin-secret", "content-type": "application/json" },
        body: JSON.stringify({ tokenName: "kept", type: "frontend", environment: "production" }),
      });
      expect(created.status).toBe(201);
      expect((await get(`${first.url}/api/client/features`, "*:development.client-secret")).status).toBe(200);
      await first.close();

      const second = await startServer(loadConfig(env));
      const tokens = (await (await get(`${second.url}/api/admin/api-tokens`, "*:*.admin-secret")).json()) as {
        tokens: { tokenName: string }[];
      };
      // Restarting with the same initial tokens neither fails nor duplicates them.
      expect(tokens.tokens.map((token) => token.tokenName).sort()).toEqual([
        "init-admin",
        "init-client",
        "kept",
      ]);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.runIf(process.env.DATABASE_URL)(
    "migrates an empty database once, even from two instances at once",
    async () => {
      const url = process.env.DATABASE_URL!;
      const name = `signalbox_migrate_${process.pid}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      const [one, two] = await Promise.all([
        connect({ databaseUrl: withDatabase(url, name) }),
        connect({ databaseUrl: withDatabase(url, name) }),
      ]);
      try {
        await Promise.all([migrate(one.db), migrate(two.db)]);
        await migrate(one.db);
        const environments = await one.db.selectFrom("environments").select("name").orderBy("name").execute();
        expect(environments.map((row) => row.name)).toEqual(["development", "production"]);
      } finally {
        await Promise.all([one.close(), two.close()]);
        await admin.query(`drop database if exists ${name}`);
        await admin.end();
      }
    },
  );
});
