import { ApiError, noAccess, notFound, validationError } from "@signalbox/protocol";
import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";
import type { Actor } from "../../access/actor.js";
import { can, canSee } from "../../access/can.js";
import type { Permission } from "../../access/permissions.js";
import type { Db } from "../../db/connection.js";
import { conform } from "../../shared/conform.js";
import { checkConstraints } from "../../shared/schemas.js";
import { refuseUnreviewed } from "../change-requests/gate.js";
import type { ChangeInput } from "../change-requests/schemas.js";
import type { ChangeRequestService } from "../change-requests/service.js";
import { NewContextField } from "../context-fields/schemas.js";
import type { ContextFieldService } from "../context-fields/service.js";
import type { EnvironmentService } from "../environments/service.js";
import type { EventService } from "../events/service.js";
import type { DependencyService } from "../features/dependencies/service.js";
import { CreateFeature, type FeatureView, UpdateFeature } from "../features/flags/schemas.js";
import type { FlagRef, FlagService } from "../features/flags/service.js";
import { Strategy, type StrategyInput } from "../features/strategies/schemas.js";
import type { StrategyService } from "../features/strategies/service.js";
import { Tag } from "../features/tags/schemas.js";
import type { FeatureTagService } from "../features/tags/service.js";
import { Variants } from "../features/variants/schemas.js";
import type { VariantService } from "../features/variants/service.js";
import { checkFlagName } from "../projects/naming.js";
import type { ActiveProject, ProjectService } from "../projects/service.js";
import type { SegmentService } from "../segments/service.js";
import type { StrategyDefinitionService } from "../strategy-definitions/service.js";
import { NewTagType } from "../tag-types/schemas.js";
import type { TagTypeService } from "../tag-types/service.js";
import type {
  ExportQuery,
  ExportResult,
  Finding,
  ImportBody,
  ImportData,
  ValidationReport,
} from "./schemas.js";

export interface ImportExportLinks {
  flags: Pick<
    FlagService,
    "activeViews" | "find" | "inProject" | "search" | "create" | "update" | "setStale" | "setEnabled"
  >;
  strategies: Pick<StrategyService, "ofFlags" | "add" | "remove">;
  variants: Pick<VariantService, "set">;
  featureTags: Pick<FeatureTagService, "ofFlags" | "add" | "remove">;
  tagTypes: Pick<TagTypeService, "list" | "create">;
  contextFields: Pick<ContextFieldService, "list" | "create">;
  dependencies: Pick<DependencyService, "add">;
  segments: Pick<SegmentService, "list">;
  definitions: Pick<StrategyDefinitionService, "list">;
  projects: Pick<ProjectService, "requireActive" | "environmentsOf">;
  environments: Pick<EnvironmentService, "list">;
  changeRequests: Pick<ChangeRequestService, "gatedEnvironments" | "addWithin">;
}

/** An error of the validation, and how an import refuses for it (the reference's words). */
interface Problem extends Finding {
  refusal: string;
  /**
   * Review required where the import writes and cannot draft: an import leaves the refusal
   * to the writes, which answer 403 as the direct change would.
   */
  review?: true;
}

/** The file as it will be written: archived flags dropped, every entry named by its flag. */
interface Cleaned {
  features: ImportData["features"];
  strategies: (ImportData["featureStrategies"][number] & { featureName: string })[];
  environments: { featureName: string; enabled: boolean; variants: unknown[] }[];
  tags: { featureName: string; type: string; value: string }[];
  tagTypes: ImportData["tagTypes"];
  contextFields: NonNullable<ImportData["contextFields"]>;
  dependencies: NonNullable<ImportData["dependencies"]>;
}

/** What looking at an import finds, before anything is written. */
interface Examination {
  project: ActiveProject;
  cleaned: Cleaned;
  /** Flags of the file that exist in the target project: updated rather than created. */
  existing: Set<string>;
  /** The file's segment ids, as the ids of the segments of the same name here. */
  segmentIds: Map<number, number>;
  newTagTypes: ImportData["tagTypes"];
  newContextFields: Cleaned["contextFields"];
  errors: Problem[];
  warnings: Finding[];
  missing: Permission[];
  /** The target environment requires review of this person: its changes go to their draft. */
  draft: boolean;
}

/** An entry of the file made to meet the schema of its write: keys the write does not know are dropped. */
const writable = <S extends TSchema>(schema: S, value: unknown, message: string): Static<S> =>
  conform(schema, Value.Clean(schema, structuredClone(value)), message);

const unique = <T>(items: Iterable<T>): T[] => [...new Set(items)];

/** The message of a refusal, for a finding that lists what was refused. */
function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? []).map((detail) => detail.message).join("; ");
    return details ? `${error.message} ${details}` : error.message;
  }
  throw error;
}

/**
 * Moving flags between instances and projects, as the reference's export and import:
 * the export file holds a set of flags in one environment with what they use (tag types,
 * context fields, segment names, dependencies); an import writes such a file into one
 * project and environment, through the services a direct change goes through, in one
 * transaction.
 */
export class ImportExportService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly links: ImportExportLinks,
  ) {}

  async export(actor: Actor, query: ExportQuery): Promise<ExportResult> {
    const environments = (await this.links.environments.list(actor)).map((env) => env.name);
    if (!environments.includes(query.environment)) {
      throw notFound(`Could not find environment ${query.environment}`);
    }
    const views = await this.links.flags.activeViews(actor, unique(await this.selected(actor, query)));
    const result = await this.exported(actor, views, query.environment);
    await this.events.change(actor, async (change) => {
      change.record({
        type: "features-exported",
        environment: query.environment,
        data: { environment: query.environment, features: result.features.map((flag) => flag.name) },
      });
    });
    return result;
  }

  async validate(actor: Actor, body: ImportBody): Promise<ValidationReport> {
    const found = await this.examine(actor, body);
    return {
      errors: found.errors.map(({ message, affectedItems }) => ({ message, affectedItems })),
      warnings: found.warnings,
      permissions:
        found.missing.length === 0
          ? []
          : [
              {
                message: "We detected you are missing the following permissions:",
                affectedItems: found.missing,
              },
            ],
    };
  }

  async import(actor: Actor, body: ImportBody): Promise<void> {
    if (actor.kind === "token" && actor.type === "admin") {
      throw validationError(
        "You can't use an admin token to import features. Please use either a personal access token or a service account.",
      );
    }
    const found = await this.examine(actor, body);
    const [first, ...others] = found.errors.filter((problem) => !problem.review);
    if (first) {
      throw validationError(
        first.refusal,
        [first, ...others].flatMap((problem) =>
          problem.affectedItems.length === 0
            ? [{ message: problem.message }]
            : problem.affectedItems.map((item) => ({ message: `${problem.message} ${item}` })),
        ),
      );
    }
    if (found.missing.length > 0) {
      throw noAccess(
        `You need the ${found.missing.join(", ")} permission${found.missing.length > 1 ? "s" : ""} in project ${body.project} and environment ${body.environment} to import this file.`,
      );
    }
    await this.events.change(actor, async (change) => {
      const drafted: ChangeInput[] | undefined = found.draft ? [] : undefined;
      if (!drafted) await refuseUnreviewed(change, body.project, [body.environment]);
      await this.write(actor, change.db, body, found, drafted);
      if (drafted && drafted.length > 0) {
        await this.links.changeRequests.addWithin(change, body.project, body.environment, drafted);
      }
      change.record({ type: "features-imported", project: body.project, environment: body.environment });
    });
  }

  // Exporting.

  /** The flags a query selects: listed by name, by a tag's value, by project, or all of them. */
  private async selected(actor: Actor, query: ExportQuery): Promise<string[]> {
    if (query.features && query.features.length > 0) return query.features;
    if (query.tag === undefined && query.project !== undefined) {
      return (await this.links.flags.inProject(this.db, query.project)).map((flag) => flag.name);
    }
    const all = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.links.flags.search(actor, {
        sortBy: "name",
        offset: String(offset),
        limit: "100",
      });
      all.push(...page.features);
      if (page.features.length < 100) break;
    }
    if (query.tag === undefined) return all.map((flag) => flag.name);
    const tag = query.tag;
    return all
      .filter((flag) => flag.tags.some((held) => held.value === tag || `${held.type}:${held.value}` === tag))
      .map((flag) => flag.name);
  }

  private async exported(actor: Actor, views: FeatureView[], environment: string): Promise<ExportResult> {
    const here = views.flatMap((view) => {
      const env = view.environments.find((candidate) => candidate.name === environment);
      return env ? [{ view, env }] : [];
    });
    const strategies = here.flatMap(({ env }) => env.strategies);
    const variants = here.flatMap(({ env }) => env.variants);
    const used = new Set<string>([
      ...strategies.flatMap((strategy) => [
        strategy.parameters.stickiness ?? "",
        ...strategy.constraints.map((constraint) => constraint.contextName),
        ...strategy.variants.map((variant) => variant.stickiness ?? ""),
      ]),
      ...variants.flatMap((variant) => [
        variant.stickiness ?? "",
        ...(variant.overrides ?? []).map((override) => override.contextName),
      ]),
    ]);
    const segmentIds = new Set(strategies.flatMap((strategy) => strategy.segments));
    const tags = views.flatMap((view) =>
      view.tags.map((tag) => ({ featureName: view.name, tagType: tag.type, tagValue: tag.value })),
    );
    const tagTypes = new Set(tags.map((tag) => tag.tagType));
    return {
      features: views.map((view) => ({
        name: view.name,
        type: view.type,
        description: view.description,
        project: view.project,
        stale: view.stale,
        impressionData: view.impressionData,
        archived: false,
      })),
      featureStrategies: strategies.map((strategy) => ({
        name: strategy.name,
        id: strategy.id,
        featureName: strategy.featureName,
        title: strategy.title,
        disabled: strategy.disabled,
        sortOrder: strategy.sortOrder,
        segments: strategy.segments,
        constraints: strategy.constraints,
        variants: strategy.variants,
        parameters: strategy.parameters,
      })),
      featureEnvironments: here.map(({ view, env }) => ({
        name: view.name,
        featureName: view.name,
        environment,
        enabled: env.enabled,
        variants: env.variants,
      })),
      contextFields: (await this.links.contextFields.list(actor))
        .filter((field) => used.has(field.name))
        .map(({ name, description, stickiness, sortOrder, legalValues }) => ({
          name,
          description,
          stickiness,
          sortOrder,
          legalValues,
        })),
      featureTags: tags,
      segments: (await this.links.segments.list(actor))
        .filter((segment) => segmentIds.has(segment.id))
        .map(({ id, name }) => ({ id, name })),
      tagTypes: (await this.links.tagTypes.list(actor)).filter((type) => tagTypes.has(type.name)),
      dependencies: views
        .filter((view) => view.dependencies.length > 0)
        .map((view) => ({ feature: view.name, dependencies: view.dependencies })),
    };
  }

  // Importing.

  /**
   * Reads the instance as the import will find it and says what the file would do: the
   * reference's checks, with its messages, and the permissions it needs. Nothing is written.
   */
  private async examine(actor: Actor, body: ImportBody): Promise<Examination> {
    const { db, links } = this;
    const { project: projectId, environment, data } = body;
    if (!canSee(actor, projectId)) throw notFound(`Active project with id ${projectId} does not exist`);
    const project = await links.projects.requireActive(db, projectId);
    if (!(await links.projects.environmentsOf(db, projectId)).includes(environment)) {
      throw notFound(`Environment ${environment} is not enabled in project ${projectId}`);
    }
    const known = new Map<string, FlagRef>();
    for (const name of unique(data.features.map((feature) => feature.name))) {
      const flag = await links.flags.find(db, name);
      if (flag) known.set(name, flag);
    }
    const archived = unique(data.features.filter((f) => known.get(f.name)?.archived).map((f) => f.name));
    const cleaned = clean(data, new Set(archived));
    const listed = new Set(cleaned.features.map((feature) => feature.name));
    const existing = new Set([...listed].filter((name) => known.get(name)?.project === projectId));
    const errors: Problem[] = [];
    const problem = (message: string, affectedItems: string[], refusal = message, review?: true) => {
      if (affectedItems.length > 0)
        errors.push({ message, affectedItems, refusal, ...(review ? { review } : {}) });
    };

    const definitions = await links.definitions.list(actor);
    const defined = new Set(definitions.map((definition) => definition.name));
    const strategyNames = unique(cleaned.strategies.map((strategy) => strategy.name));
    const undefinedStrategies = strategyNames.filter((name) => !defined.has(name));
    problem(
      "We detected the following custom strategy that needs to be created first:",
      undefinedStrategies,
      "Some of the strategies you are trying to import are not supported.",
    );

    const fields = new Map((await links.contextFields.list(actor)).map((field) => [field.name, field]));
    problem(
      "We detected the following context fields that do not have matching legal values with the imported ones:",
      cleaned.contextFields
        .filter((field) => {
          const local = fields.get(field.name);
          return (
            local !== undefined &&
            !(field.legalValues ?? []).every((legal) =>
              local.legalValues.some((l) => l.value === legal.value),
            )
          );
        })
        .map((field) => field.name),
      "Some of the context fields you are trying to import are not supported.",
    );

    const elsewhere = [...listed].flatMap((name) => {
      const flag = known.get(name);
      if (!flag || flag.project === projectId) return [];
      // Flag names are one namespace, but a private project's id is not the caller's to learn.
      return [canSee(actor, flag.project) ? `${name} (in project ${flag.project})` : name];
    });
    problem(
      `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${projectId}:`,
      elsewhere,
      `These features exist already in other projects: ${elsewhere.join(", ")}`,
    );

    const seen = new Set<string>();
    problem(
      "We detected the following features are duplicate in your import data:",
      unique(cleaned.features.map((f) => f.name).filter((name) => seen.has(name) || !seen.add(name))),
    );

    const naming = project.featureNaming;
    if (naming.pattern) {
      const hints = [
        naming.example ? ` For example: "${naming.example}".` : "",
        naming.description ? ` The pattern is described as follows: "${naming.description}"` : "",
      ].join("");
      problem(
        `Features imported into this project must match the project's feature naming pattern: "${naming.pattern}".${hints} The following features do not match the pattern:`,
        [...listed].filter((name) => !followsNaming(project, name)).sort(),
      );
    }

    const created = [...listed].filter((name) => !existing.has(name));
    if (project.featureLimit !== null) {
      const active = (await links.flags.inProject(db, projectId)).filter((flag) => !flag.archived).length;
      if (active + created.length > project.featureLimit) {
        const message = `We detected you want to create ${created.length} new features to a project that already has ${active} existing features, exceeding the maximum limit of ${project.featureLimit}.`;
        errors.push({ message, affectedItems: [], refusal: message });
      }
    }

    const segments = (await links.segments.list(actor)).filter(
      (segment) => segment.project === null || segment.project === projectId,
    );
    const segmentIds = new Map<number, number>();
    const missingSegments: string[] = [];
    for (const segment of data.segments ?? []) {
      const local = segments.find((candidate) => candidate.name === segment.name);
      if (local) segmentIds.set(segment.id, local.id);
      else missingSegments.push(segment.name);
    }
    problem(
      "We detected the following segments that need to be created first:",
      unique(missingSegments),
      `Unsupported segments: ${unique(missingSegments).join(", ")}`,
    );
    const fileSegments = new Set((data.segments ?? []).map((segment) => segment.id));
    problem(
      "We detected strategies that use segments the file does not list (by id):",
      unique(cleaned.strategies.flatMap((s) => (s.segments ?? []).filter((id) => !fileSegments.has(id)))).map(
        String,
      ),
    );

    const parents = unique(cleaned.dependencies.flatMap((entry) => entry.dependencies.map((d) => d.feature)));
    const missingParents = [];
    for (const parent of parents.filter((name) => !listed.has(name))) {
      const flag = known.get(parent) ?? (await links.flags.find(db, parent));
      // A parent shares its child's project: one elsewhere is as missing as one nowhere.
      if (!flag || flag.archived || flag.project !== projectId) missingParents.push(parent);
    }
    problem(
      "We detected the following dependencies that need to be created first:",
      missingParents,
      `The following dependent features are missing: ${missingParents.join(", ")}`,
    );

    problem(
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
    problem("We detected entries that this service would refuse to write:", invalidEntries(cleaned));

    const gated = await links.changeRequests.gatedEnvironments(db, projectId);
    const reviewed = gated.filter(
      (env) =>
        (env === environment || cleaned.dependencies.length > 0) &&
        !can(actor, "SKIP_CHANGE_REQUEST", { project: projectId, environment: env }),
    );
    // The environment's changes (and the dependencies, which concern every environment) go to
    // the person's draft there, as the reference does; review required only elsewhere cannot
    // be drafted in this environment, so it stays a refusal.
    const draft = reviewed.includes(environment) && actor.kind === "user";
    problem(
      "The following environments of the project require change requests, which an import cannot skip:",
      draft ? [] : reviewed,
      "",
      true,
    );

    const customStrategies = new Set(definitions.filter((d) => d.editable).map((d) => d.name));
    const warnings: Finding[] = [
      {
        message:
          "The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:",
        affectedItems: strategyNames.filter((name) => customStrategies.has(name)),
      },
      {
        message:
          "The following features will not be imported as they are currently archived. To import them, please unarchive them first:",
        affectedItems: archived,
      },
      {
        message: "The following features already exist in this project and will be overwritten:",
        affectedItems: [...existing],
      },
      {
        message:
          "The following features have links, which this service does not keep; they will not be imported:",
        affectedItems: unique(
          (data.links ?? [])
            .filter((entry) => entry.links.length > 0 && listed.has(entry.feature))
            .map((e) => e.feature),
        ),
      },
      {
        message:
          "This environment requires change requests: the import's changes to it will be added to your change request draft, and take effect once reviewed and applied:",
        affectedItems: draft ? [environment] : [],
      },
    ].filter((warning) => warning.affectedItems.length > 0);

    const newTagTypes = [];
    const tagTypes = new Set((await links.tagTypes.list(actor)).map((type) => type.name));
    for (const type of cleaned.tagTypes) {
      if (!tagTypes.has(type.name)) newTagTypes.push(type);
      tagTypes.add(type.name);
    }
    const newContextFields = cleaned.contextFields.filter(
      (field, index, all) => !fields.has(field.name) && all.findIndex((f) => f.name === field.name) === index,
    );
    const removed = (await links.strategies.ofFlags(db, [...existing])).filter(
      (entry) => entry.environment === environment,
    );
    const wanted: Permission[] = [
      "UPDATE_FEATURE",
      ...(newTagTypes.length > 0 ? (["CREATE_TAG_TYPE"] as const) : []),
      ...(newContextFields.length > 0 ? (["CREATE_CONTEXT_FIELD"] as const) : []),
      ...(removed.length > 0 ? (["DELETE_FEATURE_STRATEGY"] as const) : []),
      ...(cleaned.strategies.length > 0 ? (["CREATE_FEATURE_STRATEGY"] as const) : []),
      ...(cleaned.environments.some((env) => env.variants.length > 0)
        ? (["UPDATE_FEATURE_ENVIRONMENT_VARIANTS"] as const)
        : []),
      ...(created.length > 0 ? (["CREATE_FEATURE"] as const) : []),
      // Ours: what the direct routes for these changes ask, which the reference's list leaves out.
      ...(cleaned.environments.length > 0 ? (["UPDATE_FEATURE_ENVIRONMENT"] as const) : []),
      ...(cleaned.dependencies.length > 0 ? (["UPDATE_FEATURE_DEPENDENCY"] as const) : []),
    ];
    const missing = wanted.filter(
      (permission) => !can(actor, permission, { project: projectId, environment }),
    );

    return {
      project,
      cleaned,
      existing,
      segmentIds,
      newTagTypes,
      newContextFields,
      errors,
      warnings,
      missing,
      draft,
    };
  }

  /**
   * The reference's order: flags, variants, tag types, tags, context fields, then the
   * environment. With `drafted`, what concerns the environment (variants, strategies, on or
   * off, dependencies) is collected there as changes for review instead of written.
   */
  private async write(
    actor: Actor,
    db: Db,
    body: ImportBody,
    found: Examination,
    drafted?: ChangeInput[],
  ): Promise<void> {
    const { links } = this;
    const { project, environment } = body;
    const { cleaned, existing } = found;
    const place = (featureName: string) => ({ projectId: project, featureName, environment });

    for (const feature of cleaned.features) {
      const input = writable(CreateFeature, featureInput(feature), "The flag is not valid.");
      if (existing.has(feature.name)) {
        const { name: _name, ...changes } = input;
        const update = writable(UpdateFeature, { ...changes, ...stale(feature) }, "The flag is not valid.");
        await links.flags.update(actor, project, feature.name, update);
      } else {
        await links.flags.create(actor, project, input);
        if (feature.stale) await links.flags.setStale(actor, project, [feature.name], true);
      }
    }
    for (const env of cleaned.environments) {
      if (env.variants.length === 0) continue;
      const variants = writable(Variants, env.variants, "The variants are not valid.");
      if (drafted) drafted.push({ feature: env.featureName, action: "patchVariant", payload: { variants } });
      else await links.variants.set(actor, project, env.featureName, [environment], { asSent: variants });
    }
    for (const type of found.newTagTypes) {
      await links.tagTypes.create(
        actor,
        writable(NewTagType, tagTypeInput(type), "The tag type is not valid."),
      );
    }
    const names = cleaned.features.map((feature) => feature.name);
    const held = await links.featureTags.ofFlags(db, names);
    const key = (tag: { featureName: string; type: string; value: string }) =>
      JSON.stringify([tag.featureName, tag.type, tag.value]);
    const wantedTags = new Set(cleaned.tags.map(key));
    const heldTags = new Set(held.map(key));
    for (const tag of held) {
      if (!wantedTags.has(key(tag))) await links.featureTags.remove(actor, tag.featureName, tag);
    }
    for (const tag of cleaned.tags) {
      if (heldTags.has(key(tag))) continue;
      heldTags.add(key(tag));
      await links.featureTags.add(actor, tag.featureName, writable(Tag, tag, "The tag is not valid."));
    }
    for (const field of found.newContextFields) {
      await links.contextFields.create(
        actor,
        writable(NewContextField, contextFieldInput(field), "The context field is not valid."),
      );
    }

    for (const { strategy } of (await links.strategies.ofFlags(db, names)).filter(
      (entry) => entry.environment === environment,
    )) {
      if (drafted)
        drafted.push({
          feature: strategy.featureName,
          action: "deleteStrategy",
          payload: { id: strategy.id },
        });
      else await links.strategies.remove(actor, place(strategy.featureName), strategy.id);
    }
    for (const strategy of cleaned.strategies) {
      const input = writable(
        Strategy,
        strategyInput(strategy, found.segmentIds),
        "The strategy is not valid.",
      );
      if (drafted) drafted.push({ feature: strategy.featureName, action: "addStrategy", payload: input });
      else await links.strategies.add(actor, place(strategy.featureName), input);
    }
    for (const env of cleaned.environments) {
      if (drafted)
        drafted.push({
          feature: env.featureName,
          action: "updateEnabled",
          payload: { enabled: env.enabled },
        });
      else await links.flags.setEnabled(actor, place(env.featureName), env.enabled, false);
    }
    for (const entry of cleaned.dependencies) {
      for (const parent of entry.dependencies) {
        if (drafted) drafted.push({ feature: entry.feature, action: "addDependency", payload: parent });
        else await links.dependencies.add(actor, project, entry.feature, parent);
      }
    }
  }
}

/** Drops what the reference drops before it checks anything: flags archived here, with their entries. */
function clean(data: ImportData, archived: Set<string>): Cleaned {
  const kept = (name: string | undefined): name is string => name !== undefined && !archived.has(name);
  const tags = (data.featureTags ?? []).flatMap((tag) => {
    const type = tag.tagType ?? tag.type;
    const value = tag.tagValue ?? tag.value;
    // As the reference: a tag without a type is skipped.
    return kept(tag.featureName) && type && value !== undefined
      ? [{ featureName: tag.featureName, type, value }]
      : [];
  });
  const usedTypes = new Set(tags.map((tag) => tag.type));
  return {
    features: data.features.filter((feature) => !archived.has(feature.name)),
    strategies: data.featureStrategies.flatMap((strategy) =>
      kept(strategy.featureName) ? [{ ...strategy, featureName: strategy.featureName }] : [],
    ),
    environments: (data.featureEnvironments ?? []).flatMap((env) => {
      const featureName = env.featureName ?? env.name;
      return kept(featureName) ? [{ featureName, enabled: env.enabled, variants: env.variants ?? [] }] : [];
    }),
    tags,
    tagTypes: data.tagTypes.filter((type) => usedTypes.has(type.name)),
    contextFields: data.contextFields ?? [],
    dependencies: (data.dependencies ?? []).filter((entry) => kept(entry.feature)),
  };
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

const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));

const featureInput = (feature: ImportData["features"][number]) =>
  defined({
    name: feature.name,
    type: feature.type,
    description: feature.description,
    impressionData: feature.impressionData,
  });

const stale = (feature: ImportData["features"][number]) =>
  feature.stale === undefined ? {} : { stale: feature.stale };

/** A strategy of the file as `POST …/strategies` takes it, its segments named by this instance's ids. */
function strategyInput(strategy: Cleaned["strategies"][number], segmentIds: Map<number, number>): unknown {
  return defined({
    name: strategy.name,
    title: strategy.title,
    disabled: strategy.disabled,
    sortOrder: strategy.sortOrder,
    constraints: strategy.constraints,
    parameters: strategy.parameters,
    variants: strategy.variants && remainderFirst(strategy.variants),
    segments: strategy.segments?.map((id) => segmentIds.get(id) ?? id),
  }) as StrategyInput;
}

/**
 * A strategy's variants are settled again as they are written, and an uneven split's
 * remainder goes to the first variable variants as sent. A file holds them settled and
 * sorted by name: sent with the heavier variable ones first, each gets back the weight it
 * had, and users are placed as they were where the file came from.
 */
function remainderFirst<T extends { weight: number; weightType?: string }>(variants: T[]): T[] {
  const rank = (variant: T) => (variant.weightType === "fix" ? -1 : variant.weight);
  return [...variants].sort((a, b) => rank(b) - rank(a));
}

const tagTypeInput = (type: ImportData["tagTypes"][number]) =>
  defined({ name: type.name, description: type.description, icon: type.icon });

const contextFieldInput = (field: Cleaned["contextFields"][number]) =>
  defined({
    name: field.name,
    description: field.description,
    stickiness: field.stickiness,
    sortOrder: field.sortOrder,
    legalValues: field.legalValues,
  });
