import { type Static, type TSchema, type TUnsafe, Type } from "typebox";

/**
 * `schema`, or null: one schema whose `type` lists "null" beside the schema's own type.
 *
 * Not `Type.Union([schema, Type.Null()])`, an `anyOf`: request bodies are validated by Ajv
 * with type coercion, and Ajv coerces a value into the first `anyOf` branch that will take
 * it. With the schema first, null was stored as "" (or 0, or false); with Null first, "", 0
 * and false were stored as null. Ajv coerces a value only when it matches none of the types
 * listed, so null and a value of the schema's own type both arrive as sent. OpenAPI 3.0
 * documents the list as `nullable: true`.
 */
export const Nullable = <T extends TSchema & { type: string }>(schema: T): TUnsafe<Static<T> | null> =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, "null"] });
