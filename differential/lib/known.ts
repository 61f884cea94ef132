// The one table of differences between Signalbox and the reference that are known and
// accepted, each with its reason. packages/server/README.md's "Choices where the spec is
// silent" table carries the same rows. Anything not matched here fails the test.
import type { AdminDifference } from "./apply.js";
import type { DocumentDifference } from "./documents.js";
import type { EvaluationDifference } from "./evaluate.js";
import {
  CASE_INSENSITIVE_IN_NOTE,
  DISABLED_PARENT_NOTE,
  DRAWING_PARENT_NOTE,
  INLINING_NOTE,
  PARENT_REQUIRED_OFF_NOTE,
  REPEATED_DEPENDENCY_NOTE,
  TIED_ORDER_NOTE,
  UNUSED_SEGMENTS_NOTE,
  USER_WITH_ID_PARENT_NOTE,
} from "./notes.js";
import type { OfrepDifference } from "./ofrep.js";
import type { PlaygroundDifference } from "./playground.js";

export type Difference =
  | AdminDifference
  | DocumentDifference
  | EvaluationDifference
  | PlaygroundDifference
  | OfrepDifference;

const ok = (status: number) => status >= 200 && status < 300;

/** The reference refused a write that Signalbox took. */
const refusedByReferenceOnly = (difference: AdminDifference) =>
  difference.reference.status === 400 && ok(difference.signalbox.status);

const STRATEGY_WRITE =
  /^\/api\/admin\/projects\/[^/]+\/features\/[^/]+\/environments\/[^/]+\/strategies(\/[^/]+)?$/;
const SEGMENT_WRITE = /^\/api\/admin\/segments(\/\d+)?$/;

interface SentConstraint {
  contextName?: string;
  operator?: string;
  value?: unknown;
  values?: unknown;
}

function sentConstraints(difference: AdminDifference): SentConstraint[] {
  if (!STRATEGY_WRITE.test(difference.path) && !SEGMENT_WRITE.test(difference.path)) return [];
  const body = difference.body as { constraints?: SentConstraint[] } | undefined;
  return Array.isArray(body?.constraints) ? body.constraints : [];
}

const SINGLE_VALUE = /^(NUM_|DATE_|SEMVER_)/;

/** A constraint the reference's schema refuses and Signalbox stores (see the README row). */
function refusedConstraint(constraint: SentConstraint): boolean {
  const values = Array.isArray(constraint.values) ? constraint.values : undefined;
  const texts = [...(values ?? []), ...(constraint.value === undefined ? [] : [constraint.value])];
  if (texts.some((text) => text === "" || (typeof text === "string" && text.length > 100))) return true;
  const single = SINGLE_VALUE.test(constraint.operator ?? "");
  if (single) return constraint.value === undefined && values !== undefined && values.length > 0;
  return values === undefined && constraint.value !== undefined;
}

function dependenciesOf(side: unknown): { feature: string }[] {
  const dependencies = (side as { dependencies?: unknown } | undefined)?.dependencies;
  return Array.isArray(dependencies) ? dependencies : [];
}

/** The paths of a playground difference that are about the flag, not about one strategy. */
const flagPaths = (difference: PlaygroundDifference) =>
  difference.paths.filter((path) => !path.startsWith(".strategies"));

/**
 * Whether userWithId explains a playground difference: every strategy that differs is one,
 * and the flag's own answer differs only when one of them does, or when a parent has one.
 */
function userWithIdExplains(difference: PlaygroundDifference): boolean {
  const { reference, signalbox } = difference;
  if (reference === "(not returned)" || signalbox === "(not returned)") return false;
  if (reference.strategies.length !== signalbox.strategies.length) return false;
  const differing = reference.strategies.filter(
    (strategy, index) => JSON.stringify(strategy) !== JSON.stringify(signalbox.strategies[index]),
  );
  if (differing.some((strategy) => strategy.name !== "userWithId")) return false;
  return (
    differing.length > 0 ||
    (difference.notes?.includes(USER_WITH_ID_PARENT_NOTE) === true &&
      flagPaths(difference).every((path) => /^\.(hasUnsatisfiedDependency|isEnabled|variant)$/.test(path)))
  );
}

export interface KnownDifference {
  id: string;
  /** What differs, as the server README's table says it. */
  what: string;
  why: string;
  matches(difference: Difference): boolean;
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    id: "create-flag-status",
    what: "creating a flag answers 200, the reference 201",
    why: "the spec (endpoint 2) says 200, and where the spec is explicit it wins",
    matches: (difference) =>
      difference.kind === "admin" &&
      difference.method === "POST" &&
      /^\/api\/admin\/projects\/[^/]+\/features$/.test(difference.path) &&
      difference.reference.status === 201 &&
      difference.signalbox.status === 200,
  },
  {
    id: "segment-inlining-threshold",
    what: "clients of specification 4.2.0 and 4.2.1 get segment constraints inlined; the reference inlines below 4.2.0 only",
    why: "the spec says segments are sent separately from client specification 4.2.2 on",
    matches: (difference) => difference.kind === "document" && difference.note === INLINING_NOTE,
  },
  {
    id: "unused-segments",
    what: "the version-2 listing carries only the segments its flags use; the reference lists every segment some strategy uses",
    why: "SDKs look segments up by id, so the others are never read; fewer bytes",
    matches: (difference) =>
      difference.kind === "document" &&
      difference.note === UNUSED_SEGMENTS_NOTE &&
      Array.isArray(difference.signalbox) &&
      difference.signalbox.length === 0,
  },

  {
    id: "fixed-variants-accepted",
    what: "strategy variants whose fixed weights alone make 1000 are accepted; the reference wants one variable variant",
    why: "the spec: fixed weights are kept and variable ones share what is left, to a total of 1000",
    matches: (difference) => {
      if (difference.kind !== "admin" || !refusedByReferenceOnly(difference)) return false;
      if (!STRATEGY_WRITE.test(difference.path)) return false;
      const variants = (difference.body as { variants?: { weight?: number; weightType?: string }[] })
        ?.variants;
      return (
        Array.isArray(variants) &&
        variants.length > 0 &&
        variants.every((variant) => variant.weightType === "fix") &&
        variants.reduce((sum, variant) => sum + (variant.weight ?? 0), 0) === 1000
      );
    },
  },
  {
    id: "in-cidr-accepted",
    what: "`IN_CIDR` constraints are accepted; the reference refuses the operator",
    why: "its SDKs evaluate IN_CIDR, so rules written for them can be stored",
    matches: (difference) =>
      difference.kind === "admin" &&
      refusedByReferenceOnly(difference) &&
      sentConstraints(difference).some((constraint) => constraint.operator === "IN_CIDR"),
  },
  {
    id: "constraint-values-accepted",
    what: "constraint values the reference refuses are stored: empty strings, values over 100 characters, a list operator given only `value`, a single-value operator given only `values`",
    why: "scripts written for the reference keep working; an unreadable value evaluates as false",
    matches: (difference) =>
      difference.kind === "admin" &&
      refusedByReferenceOnly(difference) &&
      sentConstraints(difference).some(refusedConstraint),
  },
  {
    id: "legal-values-unchecked",
    what: "constraint values outside a context field's legal values are stored",
    why: "legal values guide the admin UI; a value outside them is simply never met",
    matches: (difference) =>
      difference.kind === "admin" &&
      refusedByReferenceOnly(difference) &&
      sentConstraints(difference).length > 0 &&
      /not specified as a legal value/.test(JSON.stringify(difference.reference.body)),
  },
  {
    id: "strategy-variant-names",
    what: "strategy variants named with characters that are not URL-friendly, or with an empty payload value, are stored",
    why: "variant names never appear in URLs; SDKs read an empty payload as it is",
    matches: (difference) =>
      difference.kind === "admin" &&
      refusedByReferenceOnly(difference) &&
      STRATEGY_WRITE.test(difference.path) &&
      (
        (difference.body as { variants?: { name?: string; payload?: { value?: unknown } }[] })?.variants ?? []
      ).some(
        (variant) =>
          (typeof variant.name === "string" && encodeURIComponent(variant.name) !== variant.name) ||
          variant.payload?.value === "",
      ),
  },
  {
    id: "environment-variants-any-flag",
    what: 'environment variants can be set on any flag; the reference answers 403 ("deprecated") for a flag created without variants',
    why: "the spec has flag variants per environment (endpoint 8) with no such condition",
    matches: (difference) =>
      difference.kind === "admin" &&
      difference.method === "PUT" &&
      /^\/api\/admin\/projects\/[^/]+\/features\/[^/]+\/environments\/[^/]+\/variants$/.test(
        difference.path,
      ) &&
      difference.reference.status === 403 &&
      /deprecated/i.test(JSON.stringify(difference.reference.body)) &&
      ok(difference.signalbox.status),
  },
  {
    id: "flag-variants-put",
    what: "`PUT /api/admin/projects/:p/features/:f/variants` sets the variants of every environment; the reference's open-source edition answers 404",
    why: "the reference's flag-level variants endpoint, which its open-source edition no longer routes; scripts written for it keep working",
    matches: (difference) =>
      difference.kind === "admin" &&
      difference.method === "PUT" &&
      /^\/api\/admin\/projects\/[^/]+\/features\/[^/]+\/variants$/.test(difference.path) &&
      difference.reference.status === 404 &&
      ok(difference.signalbox.status),
  },
  {
    id: "user-with-id-built-in",
    what: "`userWithId` is a built-in strategy, so creating a strategy type of that name is 409; the reference creates it",
    why: "every SDK implements userWithId; a custom definition of it would never be what SDKs evaluate",
    matches: (difference) =>
      difference.kind === "admin" &&
      difference.method === "POST" &&
      difference.path === "/api/admin/strategies" &&
      (difference.body as { name?: string })?.name === "userWithId" &&
      ok(difference.reference.status) &&
      difference.signalbox.status === 409,
  },
  {
    id: "second-parent-kept",
    what: "a second dependency adds a parent; the reference replaces the first one",
    why: "the spec lists dependencies as an array; the reference's replacing is its own TODO",
    matches: (difference) => {
      if (difference.kind !== "document") return false;
      const reference = new Set(dependenciesOf(difference.reference).map((dependency) => dependency.feature));
      const signalbox = new Set(dependenciesOf(difference.signalbox).map((dependency) => dependency.feature));
      return (
        reference.size > 0 &&
        signalbox.size > reference.size &&
        [...reference].every((name) => signalbox.has(name))
      );
    },
  },
  {
    id: "repeated-dependencies",
    what: "each dependency is listed once; the reference's listing repeats it (once per row its query joins), which SDKs evaluate once per copy, so a parent with a random rollout is drawn several times",
    why: "a bug in the reference's query; one copy is what was configured",
    matches: (difference) => {
      if (difference.kind === "sdk") return difference.notes?.includes(REPEATED_DEPENDENCY_NOTE) === true;
      if (difference.kind !== "document") return false;
      const reference = dependenciesOf(difference.reference);
      const distinct = [
        ...new Map(reference.map((dependency) => [JSON.stringify(dependency), dependency])).values(),
      ];
      return (
        reference.length > distinct.length &&
        JSON.stringify(distinct) === JSON.stringify(dependenciesOf(difference.signalbox))
      );
    },
  },
  {
    id: "frontend-disabled-parent",
    what: 'the frontend API turns on a child whose required state of a parent is "off" when that parent is switched off in the environment; the reference\'s frontend API never does',
    why: "Signalbox answers as its client API and the SDKs do (the reference's frontend API loads only the flags enabled in the environment, so the parent is missing and the child stays off)",
    matches: (difference) =>
      difference.kind === "frontend" &&
      difference.notes?.includes(DISABLED_PARENT_NOTE) === true &&
      difference.reference === "(not returned)" &&
      difference.signalbox !== "(not returned)" &&
      difference.signalbox.enabled,
  },
  {
    id: "frontend-tied-strategy-order",
    what: "strategies of one flag and environment that share a sortOrder: the frontend API evaluates them in the order the client API lists them (then by creation); the reference's frontend API reads them in no set order and sorts by sortOrder alone, so which of them decides, and whose variants are given, changes from one run to the next",
    why: "SDKs get the strategies in the client API's order, on both services, and the frontend API answers as they do",
    matches: (difference) =>
      difference.kind === "frontend" && difference.notes?.includes(TIED_ORDER_NOTE) === true,
  },
  {
    id: "playground-user-with-id",
    what: "the playground evaluates `userWithId`; the reference's playground does not know that strategy and calls it unknown (`incomplete`), so it shows a flag that strategy switches on as off, and a child of such a flag as kept off",
    why: "SDKs evaluate userWithId, and the playground answers what SDKs do",
    matches: (difference) => difference.kind === "playground" && userWithIdExplains(difference),
  },
  {
    id: "playground-case-insensitive-in",
    what: "`IN` and `NOT_IN` constraints marked `caseInsensitive` compare exactly in the playground; the reference's playground ignores case for them",
    why: "SDKs (the Node SDK, the engine) compare IN and NOT_IN exactly whatever the flag says, and the playground answers what SDKs do",
    matches: (difference) =>
      difference.kind === "playground" && difference.notes?.includes(CASE_INSENSITIVE_IN_NOTE) === true,
  },
  {
    id: "playground-parent-required-off",
    what: "a child that requires its parent off: the playground finds the dependency met when the parent is off for the context, as SDKs do; the reference's playground finds it unmet whenever the parent is switched on in the environment, or is switched off but has strategies that would let the context in",
    why: "the playground answers what SDKs do",
    matches: (difference) =>
      difference.kind === "playground" &&
      difference.notes?.includes(PARENT_REQUIRED_OFF_NOTE) === true &&
      difference.reference !== "(not returned)" &&
      difference.signalbox !== "(not returned)" &&
      difference.reference.hasUnsatisfiedDependency &&
      !difference.signalbox.hasUnsatisfiedDependency &&
      flagPaths(difference).every((path) => /^\.(hasUnsatisfiedDependency|isEnabled|variant)$/.test(path)) &&
      flagPaths(difference).length === difference.paths.length,
  },
  {
    id: "playground-parent-drawn-twice",
    what: "a child that requires its parent off, whose parent's strategies draw a random number: the reference's playground draws for the parent again when it picks the child's variant, so it may call the child on with no unmet dependency and still answer the variant `disabled`; Signalbox draws once",
    why: "one evaluation gives one answer, as in the SDKs",
    matches: (difference) =>
      difference.kind === "playground" &&
      difference.notes?.includes(DRAWING_PARENT_NOTE) === true &&
      difference.reference !== "(not returned)" &&
      difference.reference.isEnabled &&
      difference.reference.variant === "disabled" &&
      difference.paths.length === 1 &&
      difference.paths[0] === ".variant",
  },
];

export function explain(difference: Difference): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((known) => known.matches(difference));
}
