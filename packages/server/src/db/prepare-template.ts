import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { sql } from "kysely";
import { connect } from "./connection.js";
import { migrate } from "./migrate.js";

/**
 * Writes a new, migrated database as a .tar.gz: the embedded database's template (see
 * embedded-template.ts), and the tests' copy of one. It is checkpointed first, so that a
 * database made from it has nothing to replay.
 */
export async function writeTemplate(file: string): Promise<void> {
  const connection = await connect({ dataDir: "memory://" });
  try {
    await migrate(connection.db);
    await sql`checkpoint`.execute(connection.db);
    const archive = Buffer.from(await (await connection.dump!()).arrayBuffer());
    await mkdir(dirname(file), { recursive: true });
    await writeFile(`${file}.partial`, archive);
    await rename(`${file}.partial`, file);
  } finally {
    await connection.close();
  }
}
