import type { Context } from "./context.js";
import type { ConstraintDefinition } from "./definitions.js";
import { type FieldReader, fieldReader } from "./fields.js";
import { inRanges, parseRange } from "./ip.js";
import { compileRe2 } from "./regex.js";
import { rememberingLast } from "./remembered.js";
import { compareSemver, parseSemver } from "./semver.js";

export type Predicate = (context: Context) => boolean;

/**
 * Every operator the engine evaluates: the spec's, plus REGEX, SEMVER_GTE and SEMVER_LTE,
 * which the reference's SDKs also evaluate, and IN_CIDR. Any other operator is false.
 */
export const CONSTRAINT_OPERATORS = [
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
  "SEMVER_GTE",
  "SEMVER_LT",
  "SEMVER_LTE",
  "IN_CIDR",
  "REGEX",
] as const;

export type ConstraintOperator = (typeof CONSTRAINT_OPERATORS)[number];

// Untyped, so that it serves both as a predicate and as a test of a value.
const never = () => false;

function list(definition: ConstraintDefinition): string[] {
  const values = Array.isArray(definition.values) ? definition.values : [];
  const strings = values.filter((value): value is string => typeof value === "string");
  if (strings.length === 0 && typeof definition.value === "string") strings.push(definition.value);
  return strings;
}

function single(definition: ConstraintDefinition): string | undefined {
  if (typeof definition.value === "string") return definition.value;
  if (typeof definition.value === "number") return String(definition.value);
  const first = Array.isArray(definition.values) ? definition.values[0] : undefined;
  return typeof first === "string" ? first : undefined;
}

function parseNumber(text: string | undefined): number {
  return text === undefined || text.trim() === "" ? Number.NaN : Number(text);
}

const parseDateText = rememberingLast((text: string) => Date.parse(text));

function parseDate(text: string | undefined): number {
  return text === undefined ? Number.NaN : parseDateText(text);
}

/**
 * The test an operator makes on the context value (undefined when the field is
 * missing), or undefined when the constraint itself is malformed.
 */
function operatorTest(
  definition: ConstraintDefinition,
): ((value: string | undefined) => boolean) | undefined {
  const { operator, contextName } = definition;
  const ignoreCase = definition.caseInsensitive === true;
  switch (operator) {
    case "IN":
    case "NOT_IN": {
      const values = new Set(list(definition).map((value) => value.trim()));
      const isIn = (value: string | undefined) => value !== undefined && values.has(value);
      return operator === "IN" ? isIn : (value) => !isIn(value);
    }
    case "STR_STARTS_WITH":
    case "STR_ENDS_WITH":
    case "STR_CONTAINS": {
      const values = list(definition).map((value) => (ignoreCase ? value.toLowerCase() : value));
      const test =
        operator === "STR_STARTS_WITH"
          ? (value: string, expected: string) => value.startsWith(expected)
          : operator === "STR_ENDS_WITH"
            ? (value: string, expected: string) => value.endsWith(expected)
            : (value: string, expected: string) => value.includes(expected);
      return (value) => {
        if (value === undefined) return false;
        const subject = ignoreCase ? value.toLowerCase() : value;
        for (const expected of values) if (test(subject, expected)) return true;
        return false;
      };
    }
    case "NUM_EQ":
    case "NUM_GT":
    case "NUM_GTE":
    case "NUM_LT":
    case "NUM_LTE": {
      const expected = parseNumber(single(definition));
      if (Number.isNaN(expected)) return undefined;
      const compare = numberComparison(operator);
      return (value) => {
        const actual = parseNumber(value);
        return !Number.isNaN(actual) && compare(actual, expected);
      };
    }
    case "DATE_AFTER":
    case "DATE_BEFORE": {
      const expected = parseDate(single(definition));
      if (Number.isNaN(expected)) return undefined;
      const after = operator === "DATE_AFTER";
      // currentTime defaults to now, as in every SDK; another missing date field fails.
      const defaultsToNow = contextName === "currentTime";
      return (value) => {
        const actual = value === undefined && defaultsToNow ? Date.now() : parseDate(value);
        if (Number.isNaN(actual)) return false;
        return after ? actual > expected : actual < expected;
      };
    }
    case "SEMVER_EQ":
    case "SEMVER_GT":
    case "SEMVER_GTE":
    case "SEMVER_LT":
    case "SEMVER_LTE": {
      const expected = parseSemver(single(definition) ?? "");
      if (!expected) return undefined;
      const compare = numberComparison(operator.replace("SEMVER", "NUM"));
      return (value) => {
        const actual = value === undefined ? undefined : parseSemver(value);
        return actual !== undefined && compare(compareSemver(actual, expected), 0);
      };
    }
    case "REGEX": {
      const pattern = single(definition);
      const regex = pattern === undefined ? undefined : compileRe2(pattern, ignoreCase);
      if (!regex) return undefined;
      return (value) => value !== undefined && regex.test(value);
    }
    case "IN_CIDR": {
      const ranges = list(definition).flatMap((value) => parseRange(value) ?? []);
      return (value) => value !== undefined && inRanges(ranges, value);
    }
    default:
      return undefined;
  }
}

function numberComparison(operator: string): (a: number, b: number) => boolean {
  switch (operator) {
    case "NUM_EQ":
      return (a, b) => a === b;
    case "NUM_GT":
      return (a, b) => a > b;
    case "NUM_GTE":
      return (a, b) => a >= b;
    case "NUM_LT":
      return (a, b) => a < b;
    default:
      return (a, b) => a <= b;
  }
}

/**
 * Why the engine would treat a constraint as malformed (and so as false), or undefined when
 * it can evaluate it: what a flag service refuses on write, so that what is stored works.
 * Beyond what evaluation itself needs, every CIDR listed must parse (evaluation skips the
 * ones that do not).
 */
export function constraintProblem(definition: ConstraintDefinition): string | undefined {
  // Documents off the network reach this through Snapshot.explain: their shape is not trusted.
  if (typeof definition?.contextName !== "string") return "a constraint needs the name of a context field";
  const { operator } = definition;
  if (typeof operator !== "string") return `unknown operator ${String(operator)}`;
  const value = single(definition);
  if (operator === "IN_CIDR") {
    const bad = list(definition).find((entry) => parseRange(entry) === undefined);
    return bad === undefined ? undefined : `IN_CIDR needs IP addresses or CIDR ranges, got "${bad}"`;
  }
  if (operatorTest(definition)) return undefined;
  const shown = value === undefined ? "nothing" : `"${value}"`;
  if (operator.startsWith("NUM_")) return `${operator} needs a number, got ${shown}`;
  if (operator.startsWith("DATE_")) return `${operator} needs a date (ISO 8601), got ${shown}`;
  if (operator.startsWith("SEMVER_"))
    return `${operator} needs a semantic version such as 1.2.3, got ${shown}`;
  if (operator === "REGEX") return `REGEX needs a pattern RE2 accepts, got ${shown}`;
  return `unknown operator ${operator}`;
}

/**
 * One compiled constraint, kept whole so that evaluation and `Snapshot.explain` read the
 * same test: the field it compares and whether a value of that field satisfies it.
 */
export interface ConstraintCheck {
  definition: ConstraintDefinition;
  field: string;
  read: FieldReader;
  /** `inverted` is applied; always false for a malformed constraint. */
  holds: (value: string | undefined) => boolean;
  /**
   * An unknown operator, a value its operator cannot parse, a pattern RE2 rejects: false
   * whether or not it is inverted, so that a broken rule never switches a flag on.
   */
  malformed: boolean;
}

export function compileConstraint(definition: ConstraintDefinition): ConstraintCheck {
  const field = typeof definition?.contextName === "string" ? definition.contextName : undefined;
  const test = field === undefined ? undefined : operatorTest(definition);
  const read = fieldReader(field ?? "");
  if (field === undefined || !test)
    return { definition, field: field ?? "", read, holds: never, malformed: true };
  const holds = definition.inverted === true ? (value: string | undefined) => !test(value) : test;
  return { definition, field, read, holds, malformed: false };
}

/** All checks as one predicate; undefined when there are none. */
export function allOf(checks: readonly ConstraintCheck[]): Predicate | undefined {
  if (checks.length === 0) return undefined;
  if (checks.some((check) => check.malformed)) return never;
  if (checks.length === 1) {
    const { read, holds } = checks[0]!;
    return (context) => holds(read(context));
  }
  return (context) => {
    for (const check of checks) if (!check.holds(check.read(context))) return false;
    return true;
  };
}

/** Every predicate holds (undefined ones always do); undefined when none is left. */
export function allHold(predicates: readonly (Predicate | undefined)[]): Predicate | undefined {
  const parts = predicates.filter((predicate) => predicate !== undefined);
  if (parts.length <= 1) return parts[0];
  return (context) => {
    for (const part of parts) if (!part(context)) return false;
    return true;
  };
}
