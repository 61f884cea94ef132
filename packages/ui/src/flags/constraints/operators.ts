import type { Strategy, StrategyInput } from "../queries";

/** A constraint as the service shows it (strategies and segments alike): any operator it stored. */
export type Constraint = Strategy["constraints"][number];
/** A constraint as the service takes it: one of the operators it accepts. */
export type WritableConstraint = NonNullable<StrategyInput["constraints"]>[number];
export type Operator = WritableConstraint["operator"];

type Kind = "text" | "list" | "number" | "date" | "semver" | "regex" | "cidr";

interface OperatorFacts {
  kind: Kind;
  /** What it says in a sentence, and what it says when inverted. */
  says: string;
  saysInverted: string;
}

// Record<Operator, …>: an operator the service starts accepting fails the build until it is described.
const OPERATORS: Record<Operator, OperatorFacts> = {
  IN: { kind: "list", says: "is one of", saysInverted: "is not one of" },
  NOT_IN: { kind: "list", says: "is not one of", saysInverted: "is one of" },
  STR_CONTAINS: { kind: "text", says: "contains", saysInverted: "does not contain" },
  STR_STARTS_WITH: { kind: "text", says: "starts with", saysInverted: "does not start with" },
  STR_ENDS_WITH: { kind: "text", says: "ends with", saysInverted: "does not end with" },
  REGEX: { kind: "regex", says: "matches the regular expression", saysInverted: "does not match" },
  NUM_EQ: { kind: "number", says: "is a number equal to", saysInverted: "is a number not equal to" },
  NUM_GT: { kind: "number", says: "is a number greater than", saysInverted: "is a number not greater than" },
  NUM_GTE: { kind: "number", says: "is a number at least", saysInverted: "is a number less than" },
  NUM_LT: { kind: "number", says: "is a number less than", saysInverted: "is a number not less than" },
  NUM_LTE: { kind: "number", says: "is a number at most", saysInverted: "is a number greater than" },
  DATE_AFTER: { kind: "date", says: "is after", saysInverted: "is not after" },
  DATE_BEFORE: { kind: "date", says: "is before", saysInverted: "is not before" },
  SEMVER_EQ: { kind: "semver", says: "is version", saysInverted: "is not version" },
  SEMVER_GT: { kind: "semver", says: "is a version newer than", saysInverted: "is not a version newer than" },
  SEMVER_GTE: { kind: "semver", says: "is version or newer than", saysInverted: "is a version older than" },
  SEMVER_LT: { kind: "semver", says: "is a version older than", saysInverted: "is not a version older than" },
  SEMVER_LTE: { kind: "semver", says: "is version or older than", saysInverted: "is a version newer than" },
  IN_CIDR: { kind: "cidr", says: "is in the IP ranges", saysInverted: "is not in the IP ranges" },
};

export const isOperator = (name: string): name is Operator => Object.hasOwn(OPERATORS, name);

const TEXT: Operator[] = ["IN", "NOT_IN", "STR_CONTAINS", "STR_STARTS_WITH", "STR_ENDS_WITH", "REGEX"];
const NUMBER: Operator[] = ["NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE"];
const SEMVER: Operator[] = ["SEMVER_EQ", "SEMVER_GT", "SEMVER_GTE", "SEMVER_LT", "SEMVER_LTE"];
const DATE: Operator[] = ["DATE_AFTER", "DATE_BEFORE"];

/** The built-in context fields whose values are text (currentTime is the one date). */
const TEXT_FIELDS = new Set(["userId", "sessionId", "remoteAddress", "environment", "appName"]);
const DATE_FIELD = "currentTime";

/**
 * The operators a field's values can meet, grouped for a picker. As in the reference's UI,
 * currentTime takes the date operators alone and nothing else does; a custom field's values
 * may be text, numbers or versions, so all three are offered. IN_CIDR, which the engine
 * evaluates, is not offered: the official SDKs treat it as false.
 */
export function operatorGroups(contextName: string): { group: string; operators: Operator[] }[] {
  if (contextName === DATE_FIELD) return [{ group: "Date", operators: DATE }];
  const text = { group: "Text", operators: TEXT };
  if (TEXT_FIELDS.has(contextName)) return [text];
  return [text, { group: "Number", operators: NUMBER }, { group: "Version", operators: SEMVER }];
}

export const operatorsFor = (contextName: string) => operatorGroups(contextName).flatMap((g) => g.operators);

const facts = (operator: string): OperatorFacts | undefined =>
  isOperator(operator) ? OPERATORS[operator] : undefined;

/** A list of values (IN, the text matches, IP ranges) rather than one. */
export const takesList = (operator: string) => ["list", "text", "cidr"].includes(facts(operator)?.kind ?? "");
export const takesCaseInsensitive = (operator: string) =>
  ["text", "regex"].includes(facts(operator)?.kind ?? "");
// The service refuses an inverted REGEX: "does not match" is a pattern of its own.
export const takesInverted = (operator: string) => facts(operator)?.kind !== "regex";
export const valueKind = (operator: string): Kind | undefined => facts(operator)?.kind;

export const operatorLabel = (operator: string, inverted = false) => {
  const known = facts(operator);
  if (!known) return operator;
  return inverted ? known.saysInverted : known.says;
};

/**
 * The constraint after a change of operator, in the shape that operator reads: one `value`
 * or a `values` list, never both, and no flag the operator ignores. What was entered is
 * carried over where it still fits the new shape.
 */
export function withOperator(constraint: Constraint, operator: Operator): Constraint {
  const { value, values, caseInsensitive, inverted, ...rest } = constraint;
  const entered = values?.length ? values : value ? [value] : [];
  const next: Constraint = { ...rest, operator };
  if (takesList(operator)) next.values = entered;
  else next.value = OPERATORS[operator].kind === "date" ? dateOrNow(entered[0]) : (entered[0] ?? "");
  if (takesCaseInsensitive(operator) && caseInsensitive) next.caseInsensitive = true;
  if (takesInverted(operator) && inverted) next.inverted = true;
  return next;
}

const dateOrNow = (text: string | undefined) =>
  text !== undefined && !Number.isNaN(Date.parse(text)) ? text : new Date().toISOString();

/** A new constraint on a field: its first operator, nothing entered yet. */
export function newConstraint(contextName: string): Constraint {
  const [first = "IN"] = operatorsFor(contextName);
  return withOperator({ contextName, operator: first }, first);
}

/** The constraint on another field, its operator kept when the field offers it too. */
export function withContextName(constraint: Constraint, contextName: string): Constraint {
  return operatorsFor(contextName).some((operator) => operator === constraint.operator)
    ? { ...constraint, contextName }
    : newConstraint(contextName);
}

// Strict semantic versions, as the engine compares them (a leading "v" is not one).
const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * What is wrong with a constraint before it is sent, in words for the field, or undefined.
 * The service checks again with the engine that evaluates it (RE2 patterns, say), and its
 * answer is shown as it comes.
 */
export function constraintProblem(constraint: Constraint): string | undefined {
  if (!constraint.contextName) return "Choose a context field.";
  const known = facts(constraint.operator);
  if (!known) return `The service no longer accepts the operator ${constraint.operator}; choose another.`;
  if (takesList(constraint.operator)) {
    return constraint.values?.length ? undefined : "Add at least one value.";
  }
  const value = constraint.value?.trim() ?? "";
  switch (known.kind) {
    case "number":
      return value !== "" && Number.isFinite(Number(value))
        ? undefined
        : "Enter a number, such as 42 or 1.5.";
    case "semver":
      return SEMVER_PATTERN.test(value)
        ? undefined
        : "Enter a semantic version, such as 1.2.3 or 2.0.0-beta.1.";
    case "date":
      return value !== "" && !Number.isNaN(Date.parse(value)) ? undefined : "Enter a date and time.";
    case "regex":
      return value === "" ? "Enter a regular expression." : regexProblem(value);
    default:
      return undefined;
  }
}

function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return `Not a regular expression: ${(error as Error).message}`;
  }
}

const when = (text: string) => {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString();
};

/** The constraint in a sentence: "region is one of eu, us (case insensitive)". */
export function describeConstraint(constraint: Constraint): string {
  const { contextName, operator, inverted, caseInsensitive } = constraint;
  const shown = takesList(operator)
    ? (constraint.values ?? []).join(", ")
    : valueKind(operator) === "date"
      ? when(constraint.value ?? "")
      : (constraint.value ?? "");
  const notes = caseInsensitive && takesCaseInsensitive(operator) ? " (case insensitive)" : "";
  return `${contextName} ${operatorLabel(operator, inverted === true)} ${shown}${notes}`;
}

/**
 * Constraints as a write takes them. The editor keeps any operator it was given, so this is
 * where one the service no longer accepts stops the save; callers check `constraintProblem`
 * first and show why.
 */
export function writableConstraints(constraints: readonly Constraint[]): WritableConstraint[] {
  return constraints.map(({ operator, ...rest }) => {
    if (!isOperator(operator)) throw new Error(`Unknown constraint operator ${operator}`);
    return { ...rest, operator };
  });
}
