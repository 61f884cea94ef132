import { sql } from "kysely";
import { afterEach, expect, test } from "vitest";
import { type Connection, connect } from "../src/db/connection.js";

let connection: Connection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

const estimatedRows = async (db: Connection["db"]) => {
  const { rows } = await sql<{ reltuples: number }>`
    SELECT reltuples FROM pg_class WHERE relname = 'grown'`.execute(db);
  return Number(rows[0]!.reltuples);
};

// Without autovacuum, a table that grew keeps the planner's estimate of an empty one until
// something runs ANALYZE: the embedded database does so on its own.
test("the embedded database refreshes the planner's statistics of a table that grew", async () => {
  connection = await connect({ dataDir: "memory://", analyzeEveryMs: 2000 });
  const { db } = connection;
  await sql`CREATE TABLE grown (id integer)`.execute(db);
  await sql`INSERT INTO grown SELECT generate_series(1, 5000)`.execute(db);
  // Never analysed: PostgreSQL says so with -1.
  expect(await estimatedRows(db)).toBe(-1);

  await expect.poll(() => estimatedRows(db), { timeout: 15_000, interval: 200 }).toBe(5000);
});
