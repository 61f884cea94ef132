import { readFile } from "node:fs/promises";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection.js";
import { databaseKinds, freshDatabase } from "./support/database.js";
import { type DeclaredColumn, type DeclaredTables, declaredTables } from "./support/schema-declarations.js";

// src/db/schema.ts is written by hand beside the migrations; Kysely takes its word for what a
// row holds. This holds it to the migrated database: every table and column, how each is read
// (pg parses bigint as a number, see db/connection.ts), and which may be null or left out.

const schemaSource = () => readFile(new URL("../src/db/schema.ts", import.meta.url), "utf8");

/** What pg hands back for each PostgreSQL type the migrations use. */
const READ_AS: Record<string, DeclaredColumn["kind"]> = {
  text: "string",
  varchar: "string",
  int2: "number",
  int4: "number",
  int8: "number",
  // pg and PGlite parse double precision as a number themselves.
  float8: "number",
  bool: "boolean",
  timestamptz: "Date",
  timestamp: "Date",
  date: "Date",
  jsonb: "json",
  json: "json",
  _text: "string[]",
  _varchar: "string[]",
  _int4: "number[]",
};

// Kysely's migration bookkeeping, which the application never reads through schema.ts.
const MIGRATOR_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);

interface Column {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: "YES" | "NO";
  column_default: string | null;
  is_identity: "YES" | "NO";
  is_generated: "ALWAYS" | "NEVER";
}

async function databaseColumns(db: Db): Promise<Column[]> {
  const { rows } = await sql<Column>`
    select c.table_name, c.column_name, c.udt_name, c.is_nullable, c.column_default, c.is_identity, c.is_generated
    from information_schema.columns c
    join information_schema.tables t using (table_schema, table_name)
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(db);
  return rows.filter((row) => !MIGRATOR_TABLES.has(row.table_name));
}

/** Every way schema.ts and the database disagree, one line each. */
function mismatches(declared: DeclaredTables, columns: Column[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    const name = `${column.table_name}.${column.column_name}`;
    const table = declared.get(column.table_name);
    if (!table) {
      if (!seen.has(column.table_name))
        found.push(`${column.table_name}: a table schema.ts does not declare`);
      seen.add(column.table_name);
      continue;
    }
    seen.add(column.table_name);
    seen.add(name);
    const declaration = table.get(column.column_name);
    if (!declaration) {
      found.push(`${name}: a column schema.ts does not declare`);
      continue;
    }
    const readAs = READ_AS[column.udt_name];
    if (!readAs) found.push(`${name}: ${column.udt_name}, a type this check does not map`);
    else if (readAs !== declaration.kind) {
      found.push(`${name}: declared ${declaration.kind}, but ${column.udt_name} reads as ${readAs}`);
    }
    const nullable = column.is_nullable === "YES";
    if (nullable !== declaration.nullable) {
      found.push(
        `${name}: declared ${declaration.nullable ? "nullable" : "not null"}, but the column is ${nullable ? "nullable" : "not null"}`,
      );
    }
    const computed = column.is_generated === "ALWAYS";
    const filled = computed || nullable || column.column_default !== null || column.is_identity === "YES";
    if (declaration.optional && !filled) {
      found.push(`${name}: an insert may leave it out, but the database has no default for it`);
    }
    if (computed && !declaration.readOnly) {
      found.push(`${name}: the database computes it, but schema.ts lets an insert write it`);
    }
  }
  for (const [table, declaredColumns] of declared) {
    if (!seen.has(table)) {
      found.push(`${table}: declared, but the database has no such table`);
      continue;
    }
    for (const column of declaredColumns.keys()) {
      if (!seen.has(`${table}.${column}`))
        found.push(`${table}.${column}: declared, but the table has no such column`);
    }
  }
  return found;
}

describe("schema.ts's reader", () => {
  it("refuses a form it does not know rather than guess", () => {
    const database = "export interface Database { things: ThingTable; }";
    expect(() =>
      declaredTables(`export interface ThingTable { id: Map<string, number>; } ${database}`),
    ).toThrow(/ThingTable\.id/);
    expect(() => declaredTables(`export interface ThingTable { id: number & string; } ${database}`)).toThrow(
      /unexpected "&"/,
    );
    expect(() => declaredTables(`export interface ThingTable { id: string | number; } ${database}`)).toThrow(
      /ThingTable\.id/,
    );
    expect(
      declaredTables(
        `type Stamp = ColumnType<Date | null, Date | string | undefined, never>; interface ThingTable { id: Generated<number>; at: Stamp; tags: ColumnType<string[], string, string>; } ${database}`,
      ).get("things"),
    ).toEqual(
      new Map([
        ["id", { kind: "number", nullable: false, optional: true, readOnly: false }],
        ["at", { kind: "Date", nullable: true, optional: true, readOnly: false }],
        ["tags", { kind: "json", nullable: false, optional: false, readOnly: false }],
      ]),
    );
  });
});

describe.each(databaseKinds)("schema.ts against the migrated database (%s)", (kind) => {
  it("declares every table and column as the database holds it", async () => {
    const declared = declaredTables(await schemaSource());
    const database = await freshDatabase(kind);
    try {
      expect(mismatches(declared, await databaseColumns(database.db))).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
