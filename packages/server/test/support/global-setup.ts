import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { connect } from "../../src/db/connection.js";
import { migrate } from "../../src/db/migrate.js";
import { writeTemplate } from "../../src/db/prepare-template.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string | undefined;
  }
}

// Migrating is the slow part of a fresh database: do it once per run, and let every test
// file start from a copy of the migrated template.
export default async function setup(project: TestProject) {
  const dumpFile = join(tmpdir(), `signalbox-template-${process.pid}.tar.gz`);
  await writeTemplate(dumpFile);
  project.provide("pgliteTemplate", dumpFile);

  const url = process.env.DATABASE_URL;
  if (!url) {
    project.provide("postgresTemplate", undefined);
    return;
  }
  const name = `signalbox_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  const templateUrl = withDatabase(url, name);
  const postgres = await connect({ databaseUrl: templateUrl, poolSize: 1 });
  await migrate(postgres.db);
  await postgres.close();
  project.provide("postgresTemplate", name);
  return async () => {
    await admin.query(`drop database if exists ${name}`);
    await admin.end();
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
