import { mkdirSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type Subscriber, subscribe, type Unsubscribe } from "./notifications.js";
import type { Database } from "./schema.js";

// BIGINT counters (event ids, metric counts) stay within 2^53 for any realistic install;
// numbers are what the API promises, so parse them as such.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

const stats = (pool: pg.Pool) => ({
  total: pool.totalCount,
  idle: pool.idleCount,
  waiting: pool.waitingCount,
});

export interface Connection {
  db: Db;
  kind: "postgres" | "pglite";
  close(): Promise<void>;
  /** How many connections are open, idle, and waited for. */
  pool(): { total: number; idle: number; waiting: number };
  /** The embedded database's data folder as an archive (PGlite only): how tests copy a template. */
  dump?: () => Promise<Blob>;
  /**
   * LISTENs on a channel (PostgreSQL only): how instances sharing a database hear of each
   * other's commits. PGlite lives in one process, which hears its own commits directly.
   */
  subscribe?: (channel: string, subscriber: Subscriber) => Unsubscribe;
}

export interface ConnectOptions {
  /** `postgres://…` for a PostgreSQL server; when absent the embedded PGlite is used. */
  databaseUrl?: string;
  /** PGlite's data folder; `memory://` keeps everything in memory. */
  dataDir?: string;
  /** A PGlite data folder dump to start from (tests clone a migrated template this way). */
  pgliteDump?: Blob;
  poolSize?: number;
  /** How often the embedded database refreshes its planner statistics (ANALYZE); 5 minutes unless set. */
  analyzeEveryMs?: number;
}

const ANALYZE_EVERY_MS = 5 * 60_000;

export async function connect(options: ConnectOptions): Promise<Connection> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: "postgres",
      pool: () => stats(pool),
      close: () => db.destroy(),
      subscribe: (channel, subscriber) => subscribe(options.databaseUrl!, channel, subscriber),
    };
  }
  // V8 compiles WebAssembly twice: quickly at first, then the busy functions again, optimised.
  // For PostgreSQL's module the optimised copies cost 50-60 MB for good (warm starts measured
  // 270-280 MB with them, 205-215 MB without). A flag service's SQL is short queries, which ran
  // faster without the second compilation; long CPU-bound queries run up to about half as fast.
  // The flag is read when PGlite compiles its module, so it is set just before.
  setFlagsFromString("--liftoff-only");
  const dataDir = options.dataDir ?? "memory://";
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const lite = await PGlite.create(dataDir, {
    ...(options.pgliteDump ? { loadDataDir: options.pgliteDump } : {}),
    // PostgreSQL's default 128 MB of shared buffers is sized for a database server; a flag
    // service's working set is a few megabytes, and SDK reads never reach SQL. Measured on a
    // first start with 200 writes: 460-850 MB resident with the default, 375-390 MB with this.
    postgresqlconf: ["shared_buffers = 16MB"],
  });
  // PGlite is one in-process connection: the pool hands it out to one query at a time.
  const pool = new pg.Pool(createPgConfig(lite));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // PostgreSQL's autovacuum daemon keeps the planner's statistics fresh; PGlite has no such
  // process, so a table that grew after it was created is planned as if still empty: an
  // insights query took 9.2 s at 10 000 flags, 98 ms after an ANALYZE. The same refresh, on a
  // timer; it samples a bounded number of rows per table, and SDK reads never wait on SQL.
  const analyzer = setInterval(() => {
    // A failed ANALYZE leaves the statistics as they were; the next one tries again.
    sql`ANALYZE`.execute(db).catch(() => {});
  }, options.analyzeEveryMs ?? ANALYZE_EVERY_MS).unref();
  return {
    db,
    kind: "pglite",
    pool: () => stats(pool),
    dump: () => lite.dumpDataDir("gzip"),
    close: async () => {
      clearInterval(analyzer);
      await db.destroy();
      await lite.close();
    },
  };
}
