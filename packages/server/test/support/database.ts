import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { inject } from "vitest";
import { type Connection, connect } from "../../src/db/connection.js";
import { withDatabase } from "./global-setup.js";

export type DatabaseKind = "pglite" | "postgres";

/** The databases this run can test against: PGlite always, PostgreSQL when DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** A migrated database of its own, copied from the run's template; closing it drops it. */
export async function freshDatabase(kind: DatabaseKind): Promise<Connection & { url?: string }> {
  if (kind === "pglite") {
    const dump = new Blob([await readFile(inject("pgliteTemplate"))]);
    return connect({ dataDir: "memory://", pgliteDump: dump });
  }
  const url = process.env.DATABASE_URL!;
  const template = inject("postgresTemplate")!;
  const name = `signalbox_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const databaseUrl = withDatabase(url, name);
  const connection = await connect({ databaseUrl, poolSize: 5 });
  return {
    ...connection,
    url: databaseUrl,
    close: async () => {
      await connection.close();
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name}`);
      await dropper.end();
    },
  };
}
