// The PostgreSQL server the benchmarks that need one use, and fresh databases on it.
import pg from "pg";

export const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** An empty database of that name on the server (an older one of the name is dropped); its URL. */
export async function freshDatabase(name: string): Promise<string> {
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const dropDatabase = (name: string) =>
  admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
