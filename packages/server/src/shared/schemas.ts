import { CONSTRAINT_OPERATORS, constraintProblem } from "@signalbox/engine";
import { invalidField } from "@signalbox/protocol";
import { Type } from "typebox";

// Every field that may be null is written `Nullable(X)`, never as a union with Type.Null():
// why is in @signalbox/protocol, whose SDK payloads need it too.
export { Nullable } from "@signalbox/protocol";

/**
 * A name that appears in URLs: the characters `encodeURIComponent` leaves alone (RFC 3986
 * unreserved and `!*'()`), the reference's rule for flag, project, environment and
 * strategy names.
 */
export const urlSafeName = (options: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 100,
    pattern: "^[a-zA-Z0-9~_.!*'()-]+$",
  });

// Unknown keys are dropped rather than stored (the reference refuses them). A constraint
// always carries a `values` list, as the reference stores it and legacy SDKs expect. The
// operators are the engine's: the spec's, plus REGEX, SEMVER_GTE and SEMVER_LTE, which the
// reference accepts too, and IN_CIDR, which it refuses.
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

/**
 * A constraint as stored and shown: written through `Constraint`, read back without
 * narrowing, so what older writers stored still reads.
 */
export const StoredConstraint = Type.Object({
  contextName: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String())),
  value: Type.Optional(Type.String()),
  inverted: Type.Optional(Type.Boolean()),
  caseInsensitive: Type.Optional(Type.Boolean()),
});

/**
 * What the schema cannot say about constraints: a value its operator can read (a number, a
 * date, a semantic version, CIDR ranges, a pattern RE2 accepts), checked by the engine that
 * will evaluate it. A constraint the engine cannot read would be silently false.
 */
export function checkConstraints(
  constraints: readonly { operator: string; inverted?: boolean }[],
  path: string,
): void {
  constraints.forEach((constraint, index) => {
    const problem =
      constraintProblem(constraint as Parameters<typeof constraintProblem>[0]) ??
      // The reference refuses it too: "does not match" reads better as its own pattern.
      (constraint.operator === "REGEX" && constraint.inverted === true
        ? "REGEX cannot be inverted"
        : undefined);
    if (problem) throw invalidField(`${path}.${index}`, `${path}.${index}: ${problem}`);
  });
}
