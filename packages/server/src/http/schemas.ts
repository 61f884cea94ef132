import { Type } from "typebox";

/**
 * A name that appears in URLs: RFC 3986 unreserved characters only, the reference's rule
 * for flag, project, environment and strategy names.
 */
export const urlSafeName = (options: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 100,
    pattern: "^[a-zA-Z0-9~_.-]+$",
  });

/** The spec's operators, plus the two the reference's SDKs also evaluate. */
const CONSTRAINT_OPERATORS = [
  "IN",
  "NOT_IN",
  "STR_ENDS_WITH",
  "STR_STARTS_WITH",
  "STR_CONTAINS",
  "NUM_EQ",
  "NUM_GT",
  "NUM_GTE",
  "NUM_LT",
  "NUM_LTE",
  "DATE_AFTER",
  "DATE_BEFORE",
  "SEMVER_EQ",
  "SEMVER_GT",
  "SEMVER_LT",
  "IN_CIDR",
  "REGEX",
] as const;

// Unknown keys are dropped rather than stored (the reference refuses them). A constraint
// always carries a `values` list, as the reference stores it and legacy SDKs expect.
export const Constraint = Type.Object(
  {
    contextName: Type.String({ minLength: 1 }),
    operator: Type.Enum(CONSTRAINT_OPERATORS),
    caseInsensitive: Type.Optional(Type.Boolean()),
    inverted: Type.Optional(Type.Boolean()),
    values: Type.Optional(Type.Array(Type.String(), { default: [] })),
    value: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
