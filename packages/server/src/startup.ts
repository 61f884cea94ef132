import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { sql } from "kysely";
import type { Db } from "./db/connection.js";

/** A start-up failure an operator can fix: its message is one line naming what to change. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** Fails before anything is created when the port is taken: a data folder made for nothing helps no one. */
export function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === "EADDRINUSE"
          ? "is already in use by another process"
          : error.code === "EACCES"
            ? "needs privileges this process does not have"
            : `cannot be opened (${error.code ?? error.message})`;
      reject(
        new StartupError(`port ${port} on ${host} ${reason}: stop the other process or set PORT (and HOST)`),
      );
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Takes the embedded data folder for this process. PGlite has no lock of its own, and two
 * processes writing one folder corrupt it. A lock left by a process that died is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "signalbox.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(file, "utf8"), 10);
      if (Number.isSafeInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new StartupError(
          `the data folder ${dataDir} is in use by process ${holder}: stop it, or set DATA_DIR to another folder`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new StartupError(`could not lock the data folder ${dataDir}: another process keeps taking it`);
}

/** The first error of a connection attempt: `pg` wraps one per address in an AggregateError. */
function rootCause(error: unknown): NodeJS.ErrnoException & { code?: string } {
  let cause = error as NodeJS.ErrnoException & { errors?: unknown[] };
  while (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0] as typeof cause;
  return cause;
}

function where(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || 5432}${url.pathname}`;
}

/** Turns a failed first query into what the operator should do about it. */
export function databaseProblem(error: unknown, databaseUrl: string | undefined): StartupError {
  const cause = rootCause(error);
  if (!databaseUrl) {
    return new StartupError(`the embedded database could not be opened (${cause.message}): check DATA_DIR`);
  }
  const at = where(databaseUrl);
  const user = decodeURIComponent(new URL(databaseUrl).username) || "(default user)";
  switch (cause.code) {
    case "ECONNREFUSED":
      return new StartupError(
        `no PostgreSQL answers at ${at}: start it, or fix the host and port in DATABASE_URL`,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError(
        `the database host in DATABASE_URL (${at}) cannot be resolved: fix DATABASE_URL`,
      );
    case "ETIMEDOUT":
      return new StartupError(
        `connecting to PostgreSQL at ${at} timed out: check the network and DATABASE_URL`,
      );
    case "28P01":
    case "28000":
      return new StartupError(
        `PostgreSQL at ${at} refused user ${user}: fix the user and password in DATABASE_URL`,
      );
    case "3D000":
      return new StartupError(
        `the database in DATABASE_URL (${at}) does not exist: create it, or fix DATABASE_URL`,
      );
    case "42501":
      return new StartupError(
        `user ${user} may not create tables in ${at}: grant it, or use another DATABASE_URL`,
      );
  }
  return new StartupError(`PostgreSQL at ${at} failed: ${cause.message.split("\n")[0]} (DATABASE_URL)`);
}

/**
 * Refuses a database that holds another application's tables (an Unleash database, say)
 * before any migration writes to it: migrating would fail half-way and leave tables behind.
 */
export async function refuseForeignSchema(db: Db, databaseUrl: string | undefined): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name
  `.execute(db);
  const names = rows.map((row) => row.name);
  if (names.length === 0 || names.includes("kysely_migration")) return;
  const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? ", …" : "");
  const place = databaseUrl ? `the database in DATABASE_URL (${where(databaseUrl)})` : "the data folder";
  throw new StartupError(
    `${place} holds tables of another application (${shown}): give Signalbox a database of its own`,
  );
}
