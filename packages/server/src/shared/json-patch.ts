import { validationError } from "@signalbox/protocol";
import jsonpatch, { type Operation } from "fast-json-patch";
import { type Static, type TSchema, Type } from "typebox";
import { conform } from "./conform.js";

/** A JSON Patch (RFC 6902) body. */
export const JsonPatch = Type.Array(
  Type.Object({
    op: Type.Enum(["add", "remove", "replace", "copy", "move", "test"]),
    path: Type.String(),
    from: Type.Optional(Type.String()),
    value: Type.Optional(Type.Unknown()),
  }),
);

export type PatchOperations = Static<typeof JsonPatch>;

/**
 * A copy of `document` with the JSON Patch applied, completed with the schema's defaults and
 * checked against the same schema the PUT body must meet: a patch stores what a
 * replacement would, and cannot store what a replacement could not.
 */
export function patched<S extends TSchema>(
  schema: S,
  document: unknown,
  operations: PatchOperations,
): Static<S> {
  let result: unknown;
  try {
    result = jsonpatch.applyPatch(
      structuredClone(document),
      operations as Operation[],
      true,
      true,
      true,
    ).newDocument;
  } catch (error) {
    throw validationError(`The JSON Patch does not apply: ${(error as Error).message.split("\n")[0]}`);
  }
  return conform(schema, result, "The patched value does not match the schema.");
}
