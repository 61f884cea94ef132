import { ApiError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { can, canSee } from "../../access/can.js";
import type { Permission } from "../../access/permissions.js";
import { checkConstraints } from "../../shared/schemas.js";
import { NewContextField } from "../context-fields/schemas.js";
import type { ContextFieldDefinition } from "../context-fields/service.js";
import { CreateFeature } from "../features/editing/schemas.js";
import type { FlagRef } from "../features/flags/service.js";
import { Strategy } from "../features/strategies/schemas.js";
import { Tag } from "../features/tags/schemas.js";
import { Variants } from "../features/variants/schemas.js";
import { checkFlagName } from "../projects/naming.js";
import type { ActiveProject } from "../projects/service.js";
import type { StrategyDefinitionView } from "../strategy-definitions/schemas.js";
import { NewTagType } from "../tag-types/schemas.js";
import {
  type Cleaned,
  contextFieldInput,
  featureInput,
  strategyInput,
  tagTypeInput,
  unique,
  writable,
} from "./entries.js";
import type { Finding, ImportBody } from "./schemas.js";

/** An error of the validation, and how an import refuses for it (the reference's words). */
export interface Problem extends Finding {
  refusal: string;
  /**
   * Review required where the import writes and cannot draft: an import leaves the refusal
   * to the writes, which answer 403 as the direct change would.
   */
  review?: true;
}

/** What the checks look at: the file as it will be written, and the instance as the import finds it. */
export interface Scene {
  actor: Actor;
  body: ImportBody;
  project: ActiveProject;
  cleaned: Cleaned;
  /** The flags of the file's features that exist here, archived or not, by name. */
  known: ReadonlyMap<string, FlagRef>;
  /** The file's features, those archived here dropped. */
  listed: ReadonlySet<string>;
  /** Flags of the file that exist in the target project: updated rather than created. */
  existing: ReadonlySet<string>;
  /** Flags of the file that do not: created. */
  created: string[];
  /** Flags of the file archived here: not imported. */
  archived: string[];
  definitions: StrategyDefinitionView[];
  contextFields: ReadonlyMap<string, ContextFieldDefinition>;
  /** Segments of the file that no segment here has the name of. */
  missingSegments: string[];
  /** Environments whose review this person may not skip, where the import writes. */
  reviewed: string[];
  /** The target environment requires review of this person: its changes go to their draft. */
  draft: boolean;
  /** A flag by name, wherever it lives. */
  flag(name: string): Promise<FlagRef | undefined>;
  /** How many active flags the target project holds. */
  activeFlagCount(): Promise<number>;
}

/** A check that refuses an import: the problem it finds, if any. */
type Refusal = (scene: Scene) => Problem | undefined | Promise<Problem | undefined>;

/** A problem that lists what it refuses; none when there is nothing to list. */
function listing(
  message: string,
  affectedItems: string[],
  refusal = message,
  review?: true,
): Problem | undefined {
  if (affectedItems.length === 0) return undefined;
  return { message, affectedItems, refusal, ...(review ? { review } : {}) };
}

const strategyNames = ({ cleaned }: Scene) => unique(cleaned.strategies.map((strategy) => strategy.name));

function undefinedStrategies(scene: Scene) {
  const defined = new Set(scene.definitions.map((definition) => definition.name));
  return listing(
    "We detected the following custom strategy that needs to be created first:",
    strategyNames(scene).filter((name) => !defined.has(name)),
    "Some of the strategies you are trying to import are not supported.",
  );
}

function unmatchedLegalValues({ cleaned, contextFields }: Scene) {
  return listing(
    "We detected the following context fields that do not have matching legal values with the imported ones:",
    cleaned.contextFields
      .filter((field) => {
        const local = contextFields.get(field.name);
        return (
          local !== undefined &&
          !(field.legalValues ?? []).every((legal) => local.legalValues.some((l) => l.value === legal.value))
        );
      })
      .map((field) => field.name),
    "Some of the context fields you are trying to import are not supported.",
  );
}

function flagsOfOtherProjects({ actor, body, known, listed }: Scene) {
  const elsewhere = [...listed].flatMap((name) => {
    const flag = known.get(name);
    if (!flag || flag.project === body.project) return [];
    // Flag names are one namespace, but a private project's id is not the caller's to learn.
    return [canSee(actor, flag.project) ? `${name} (in project ${flag.project})` : name];
  });
  return listing(
    `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${body.project}:`,
    elsewhere,
    `These features exist already in other projects: ${elsewhere.join(", ")}`,
  );
}

function duplicateFlags({ cleaned }: Scene) {
  const seen = new Set<string>();
  return listing(
    "We detected the following features are duplicate in your import data:",
    unique(cleaned.features.map((f) => f.name).filter((name) => seen.has(name) || !seen.add(name))),
  );
}

function namesAgainstPattern({ project, listed }: Scene) {
  const naming = project.featureNaming;
  if (!naming.pattern) return undefined;
  const hints = [
    naming.example ? ` For example: "${naming.example}".` : "",
    naming.description ? ` The pattern is described as follows: "${naming.description}"` : "",
  ].join("");
  return listing(
    `Features imported into this project must match the project's feature naming pattern: "${naming.pattern}".${hints} The following features do not match the pattern:`,
    [...listed].filter((name) => !followsNaming(project, name)).sort(),
  );
}

async function overFeatureLimit({ project, created, activeFlagCount }: Scene) {
  if (project.featureLimit === null) return undefined;
  const active = await activeFlagCount();
  if (active + created.length <= project.featureLimit) return undefined;
  const message = `We detected you want to create ${created.length} new features to a project that already has ${active} existing features, exceeding the maximum limit of ${project.featureLimit}.`;
  return { message, affectedItems: [], refusal: message };
}

function missingSegments({ missingSegments }: Scene) {
  return listing(
    "We detected the following segments that need to be created first:",
    unique(missingSegments),
    `Unsupported segments: ${unique(missingSegments).join(", ")}`,
  );
}

function segmentIdsNotInFile({ body, cleaned }: Scene) {
  const fileSegments = new Set((body.data.segments ?? []).map((segment) => segment.id));
  return listing(
    "We detected strategies that use segments the file does not list (by id):",
    unique(cleaned.strategies.flatMap((s) => (s.segments ?? []).filter((id) => !fileSegments.has(id)))).map(
      String,
    ),
  );
}

async function missingParents({ body, cleaned, known, listed, flag: find }: Scene) {
  const parents = unique(cleaned.dependencies.flatMap((entry) => entry.dependencies.map((d) => d.feature)));
  const missing = [];
  for (const parent of parents.filter((name) => !listed.has(name))) {
    const flag = known.get(parent) ?? (await find(parent));
    // A parent shares its child's project: one elsewhere is as missing as one nowhere.
    if (!flag || flag.archived || flag.project !== body.project) missing.push(parent);
  }
  return listing(
    "We detected the following dependencies that need to be created first:",
    missing,
    `The following dependent features are missing: ${missing.join(", ")}`,
  );
}

function entriesOfUnlistedFlags({ cleaned, listed }: Scene) {
  return listing(
    "We detected strategies, environment settings, tags or dependencies of flags the file does not list among its features:",
    unique(
      [
        ...cleaned.strategies.map((s) => s.featureName),
        ...cleaned.environments.map((e) => e.featureName),
        ...cleaned.tags.map((t) => t.featureName),
        ...cleaned.dependencies.map((d) => d.feature),
      ].filter((name) => !listed.has(name)),
    ),
  );
}

function unwritableEntries({ cleaned }: Scene) {
  return listing("We detected entries that this service would refuse to write:", invalidEntries(cleaned));
}

function unskippableReviews({ reviewed, draft }: Scene) {
  return listing(
    "The following environments of the project require change requests, which an import cannot skip:",
    draft ? [] : reviewed,
    "",
    true,
  );
}

/** What refuses an import, in the reference's order: validation lists them all, an import the first. */
export const REFUSALS: Refusal[] = [
  undefinedStrategies,
  unmatchedLegalValues,
  flagsOfOtherProjects,
  duplicateFlags,
  namesAgainstPattern,
  overFeatureLimit,
  missingSegments,
  segmentIdsNotInFile,
  missingParents,
  entriesOfUnlistedFlags,
  unwritableEntries,
  unskippableReviews,
];

function customStrategiesUsed(scene: Scene): Finding {
  const custom = new Set(scene.definitions.filter((d) => d.editable).map((d) => d.name));
  return {
    message:
      "The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:",
    affectedItems: strategyNames(scene).filter((name) => custom.has(name)),
  };
}

const archivedFlagsSkipped = ({ archived }: Scene): Finding => ({
  message:
    "The following features will not be imported as they are currently archived. To import them, please unarchive them first:",
  affectedItems: archived,
});

const flagsOverwritten = ({ existing }: Scene): Finding => ({
  message: "The following features already exist in this project and will be overwritten:",
  affectedItems: [...existing],
});

const linksDropped = ({ body, listed }: Scene): Finding => ({
  message: "The following features have links, which this service does not keep; they will not be imported:",
  affectedItems: unique(
    (body.data.links ?? [])
      .filter((entry) => entry.links.length > 0 && listed.has(entry.feature))
      .map((e) => e.feature),
  ),
});

const changesDrafted = ({ body, draft }: Scene): Finding => ({
  message:
    "This environment requires change requests: the import's changes to it will be added to your change request draft, and take effect once reviewed and applied:",
  affectedItems: draft ? [body.environment] : [],
});

/** What an import will do that its author may not expect, in the reference's order; each only when it lists something. */
export const WARNINGS: ((scene: Scene) => Finding)[] = [
  customStrategiesUsed,
  archivedFlagsSkipped,
  flagsOverwritten,
  linksDropped,
  changesDrafted,
];

/** What the import will write besides the flags and their strategies, found before it writes. */
export interface Writes {
  newTagTypes: number;
  newContextFields: number;
  removedStrategies: number;
}

/**
 * The environments whose review the person may not skip where the import writes: the
 * target one, and every one when the file has dependencies, which concern them all.
 */
export function reviewsOf(actor: Actor, body: ImportBody, cleaned: Cleaned, gated: string[]) {
  const reviewed = gated.filter(
    (env) =>
      (env === body.environment || cleaned.dependencies.length > 0) &&
      !can(actor, "SKIP_CHANGE_REQUEST", { project: body.project, environment: env }),
  );
  // The environment's changes (and the dependencies) go to the person's draft there, as the
  // reference does; review required only elsewhere cannot be drafted in this environment, so
  // it stays a refusal.
  return { reviewed, draft: reviewed.includes(body.environment) && actor.kind === "user" };
}

/** The permissions the import's writes need that the person lacks, in the reference's order. */
export function missingPermissions({ actor, body, cleaned, created }: Scene, writes: Writes): Permission[] {
  const wanted: Permission[] = [
    "UPDATE_FEATURE",
    ...(writes.newTagTypes > 0 ? (["CREATE_TAG_TYPE"] as const) : []),
    ...(writes.newContextFields > 0 ? (["CREATE_CONTEXT_FIELD"] as const) : []),
    ...(writes.removedStrategies > 0 ? (["DELETE_FEATURE_STRATEGY"] as const) : []),
    ...(cleaned.strategies.length > 0 ? (["CREATE_FEATURE_STRATEGY"] as const) : []),
    ...(cleaned.environments.some((env) => env.variants.length > 0)
      ? (["UPDATE_FEATURE_ENVIRONMENT_VARIANTS"] as const)
      : []),
    ...(created.length > 0 ? (["CREATE_FEATURE"] as const) : []),
    // Ours: what the direct routes for these changes ask, which the reference's list leaves out.
    ...(cleaned.environments.length > 0 ? (["UPDATE_FEATURE_ENVIRONMENT"] as const) : []),
    ...(cleaned.dependencies.length > 0 ? (["UPDATE_FEATURE_DEPENDENCY"] as const) : []),
  ];
  return wanted.filter(
    (permission) => !can(actor, permission, { project: body.project, environment: body.environment }),
  );
}

/** The message of a refusal, for a finding that lists what was refused. */
function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? []).map((detail) => detail.message).join("; ");
    return details ? `${error.message} ${details}` : error.message;
  }
  throw error;
}

/**
 * Entries that fail the checks their writes will make (schemas, constraint values,
 * variant payloads, tag lengths): found here so that validation names them all, where
 * the import would stop at the first.
 */
function invalidEntries(cleaned: Cleaned): string[] {
  const found: string[] = [];
  const check = (what: string, run: () => void) => {
    try {
      run();
    } catch (error) {
      found.push(`${what}: ${messageOf(error)}`);
    }
  };
  for (const feature of cleaned.features) {
    check(`flag ${feature.name}`, () =>
      writable(CreateFeature, featureInput(feature), "The flag is not valid."),
    );
  }
  for (const strategy of cleaned.strategies) {
    check(`strategy ${strategy.name} of ${strategy.featureName}`, () => {
      const input = writable(Strategy, strategyInput(strategy, new Map()), "The strategy is not valid.");
      checkConstraints(input.constraints ?? [], "constraints");
    });
  }
  for (const env of cleaned.environments) {
    check(`variants of ${env.featureName}`, () =>
      writable(Variants, env.variants, "The variants are not valid."),
    );
  }
  for (const tag of cleaned.tags) {
    check(`tag ${tag.type}:${tag.value} of ${tag.featureName}`, () =>
      writable(Tag, { type: tag.type, value: tag.value }, "The tag is not valid."),
    );
  }
  for (const type of cleaned.tagTypes) {
    check(`tag type ${type.name}`, () =>
      writable(NewTagType, tagTypeInput(type), "The tag type is not valid."),
    );
  }
  for (const field of cleaned.contextFields) {
    check(`context field ${field.name}`, () =>
      writable(NewContextField, contextFieldInput(field), "The context field is not valid."),
    );
  }
  return found;
}

function followsNaming(project: ActiveProject, name: string): boolean {
  try {
    checkFlagName(project.featureNaming, name);
    return true;
  } catch {
    return false;
  }
}
