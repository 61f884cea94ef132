import { sql } from "kysely";

/**
 * `where(column, "=", anyOf(names))`: the names as one array parameter, however many there
 * are. `in (…)` takes a parameter each, so a list of flags can outgrow what a statement
 * holds (65 535), and is parsed and planned value by value.
 */
export const anyOf = (values: readonly string[]) => sql<string>`any(${values}::text[])`;
