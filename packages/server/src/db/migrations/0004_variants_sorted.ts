import { type Kysely, sql } from "kysely";
import type { VariantRow } from "../schema.js";

// A migration is frozen once released: it keeps its own copy of the order it sorts by,
// rather than following the domain code as that changes.
const collator = new Intl.Collator("en-US");
const inReferenceOrder = (variants: VariantRow[]) =>
  [...variants].sort((a, b) => collator.compare(a.name, b.name));

// Variants used to be stored in the order they were sent. SDKs place users by walking the
// list, and the reference stores and serves it by name, so every write now sorts it; this
// sorts what was stored before, once, with the same comparison, so that reads need not.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, key] of [
    ["feature_strategies", ["id"]],
    ["feature_environments", ["feature_name", "environment"]],
  ] as const) {
    const { rows } = await sql<Record<string, string> & { variants: VariantRow[] }>`
      select ${sql.join(key.map((column) => sql.ref(column)))}, variants
      from ${sql.table(table)} where jsonb_array_length(variants) > 1
    `.execute(db);
    for (const row of rows) {
      const sorted = inReferenceOrder(row.variants);
      if (sorted.every((variant, index) => variant === row.variants[index])) continue;
      const matches = sql.join(
        key.map((column) => sql`${sql.ref(column)} = ${row[column]}`),
        sql` and `,
      );
      await sql`update ${sql.table(table)} set variants = ${JSON.stringify(sorted)}::jsonb where ${matches}`.execute(
        db,
      );
    }
  }
}
