import { noAccess, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Permission } from "../../access/permissions.js";
import type { Db } from "../../db/connection.js";
import { refuseUnreviewed } from "../change-gate/gate.js";
import { gatedEnvironments } from "../change-gate/settings.js";
import type { ChangeRequestDrafts } from "../change-requests/drafts.js";
import type { ChangeInput } from "../change-requests/schemas.js";
import { NewContextField } from "../context-fields/schemas.js";
import type { ContextFieldService } from "../context-fields/service.js";
import type { EnvironmentService } from "../environments/service.js";
import type { EventService } from "../events/service.js";
import type { DependencyService } from "../features/dependencies/service.js";
import { CreateFeature } from "../features/editing/schemas.js";
import type { FlagEditingService } from "../features/editing/service.js";
import { UpdateFeature } from "../features/flags/schemas.js";
import type { FlagRef, FlagService } from "../features/flags/service.js";
import { Strategy } from "../features/strategies/schemas.js";
import type { StrategyService } from "../features/strategies/service.js";
import { Tag } from "../features/tags/schemas.js";
import type { FeatureTagService } from "../features/tags/service.js";
import { Variants } from "../features/variants/schemas.js";
import type { VariantService } from "../features/variants/service.js";
import type { FeatureView } from "../features/view/schemas.js";
import type { FlagViewService } from "../features/view/service.js";
import type { ActiveProject, ProjectService } from "../projects/service.js";
import type { SegmentService } from "../segments/service.js";
import type { StrategyDefinitionService } from "../strategy-definitions/service.js";
import { NewTagType } from "../tag-types/schemas.js";
import type { TagTypeService } from "../tag-types/service.js";
import { missingPermissions, type Problem, REFUSALS, reviewsOf, type Scene, WARNINGS } from "./checks.js";
import {
  type Cleaned,
  clean,
  contextFieldInput,
  featureInput,
  stale,
  strategyInput,
  tagTypeInput,
  unique,
  writable,
} from "./entries.js";
import type {} from "./events.js";
import type {
  ExportQuery,
  ExportResult,
  Finding,
  ImportBody,
  ImportData,
  ValidationReport,
} from "./schemas.js";

export interface ImportExportLinks {
  flags: Pick<FlagService, "find" | "findAll" | "inProject" | "setStale">;
  flagViews: Pick<FlagViewService, "activeViews" | "matchingNames">;
  flagEditing: Pick<FlagEditingService, "createAll" | "updateAll" | "setEnabledAll">;
  strategies: Pick<StrategyService, "ofFlags" | "addAll" | "removeAll">;
  variants: Pick<VariantService, "setAll">;
  featureTags: Pick<FeatureTagService, "ofFlags" | "addAll" | "removeAll">;
  tagTypes: Pick<TagTypeService, "list" | "create">;
  contextFields: Pick<ContextFieldService, "definitions" | "create">;
  dependencies: Pick<DependencyService, "addAll">;
  segments: Pick<SegmentService, "definitions">;
  definitions: Pick<StrategyDefinitionService, "list">;
  projects: Pick<ProjectService, "requireActive" | "environmentsOf">;
  environments: Pick<EnvironmentService, "list">;
  changeRequests: Pick<ChangeRequestDrafts, "addWithin">;
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
    const views = await this.links.flagViews.activeViews(actor, unique(await this.selected(actor, query)));
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
    // Every active flag the caller may see, by name, as the feature search lists them.
    const all = await this.links.flagViews.matchingNames(actor, { sortBy: "name" });
    if (query.tag === undefined) return all;
    const tag = query.tag;
    const tagged = new Set(
      (await this.links.featureTags.ofFlags(this.db, all))
        .filter((held) => held.value === tag || `${held.type}:${held.value}` === tag)
        .map((held) => held.featureName),
    );
    return all.filter((name) => tagged.has(name));
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
      contextFields: (await this.links.contextFields.definitions(actor))
        .filter((field) => used.has(field.name))
        .map(({ name, description, stickiness, sortOrder, legalValues }) => ({
          name,
          description,
          stickiness,
          sortOrder,
          legalValues,
        })),
      featureTags: tags,
      segments: (await this.links.segments.definitions(actor))
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
    const known: ReadonlyMap<string, FlagRef> = await links.flags.findAll(
      db,
      unique(data.features.map((feature) => feature.name)),
    );
    const archived = unique(data.features.filter((f) => known.get(f.name)?.archived).map((f) => f.name));
    const cleaned = clean(data, new Set(archived));
    const listed = new Set(cleaned.features.map((feature) => feature.name));
    const existing = new Set([...listed].filter((name) => known.get(name)?.project === projectId));
    const fields = new Map(
      (await links.contextFields.definitions(actor)).map((field) => [field.name, field]),
    );
    const segments = (await links.segments.definitions(actor)).filter(
      (segment) => segment.project === null || segment.project === projectId,
    );
    const segmentIds = new Map<number, number>();
    const missingSegments: string[] = [];
    for (const segment of data.segments ?? []) {
      const local = segments.find((candidate) => candidate.name === segment.name);
      if (local) segmentIds.set(segment.id, local.id);
      else missingSegments.push(segment.name);
    }
    const scene: Scene = {
      actor,
      body,
      project,
      cleaned,
      known,
      listed,
      existing,
      created: [...listed].filter((name) => !existing.has(name)),
      archived,
      definitions: await links.definitions.list(actor),
      contextFields: fields,
      missingSegments,
      ...reviewsOf(actor, body, cleaned, await gatedEnvironments(db, projectId)),
      flag: (name) => links.flags.find(db, name),
      activeFlagCount: async () =>
        (await links.flags.inProject(db, projectId)).filter((flag) => !flag.archived).length,
    };
    const errors: Problem[] = [];
    for (const refusal of REFUSALS) {
      const problem = await refusal(scene);
      if (problem) errors.push(problem);
    }
    const warnings = WARNINGS.map((warning) => warning(scene)).filter(
      (found) => found.affectedItems.length > 0,
    );

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
    const missing = missingPermissions(scene, {
      newTagTypes: newTagTypes.length,
      newContextFields: newContextFields.length,
      removedStrategies: removed.length,
    });
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
      draft: scene.draft,
    };
  }

  /**
   * The reference's order: flags, variants, tag types, tags, context fields, then the
   * environment. With `drafted`, what concerns the environment (variants, strategies, on or
   * off, dependencies) is collected there as changes for review instead of written. Each
   * step writes all the file's entries at once, through the service a direct change goes
   * through, which checks and records each as if written one at a time: the events of each
   * flag come in the order single changes would record them.
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

    const created = cleaned.features.filter((feature) => !existing.has(feature.name));
    const updated = cleaned.features.filter((feature) => existing.has(feature.name));
    const input = (feature: ImportData["features"][number]) =>
      writable(CreateFeature, featureInput(feature), "The flag is not valid.");
    if (created.length > 0) await links.flagEditing.createAll(actor, project, created.map(input));
    const markedStale = created.filter((feature) => feature.stale).map((feature) => feature.name);
    if (markedStale.length > 0) await links.flags.setStale(actor, project, markedStale, true);
    if (updated.length > 0) {
      await links.flagEditing.updateAll(
        actor,
        project,
        updated.map((feature) => {
          const { name, ...changes } = input(feature);
          const edit = writable(UpdateFeature, { ...changes, ...stale(feature) }, "The flag is not valid.");
          return { name, edit };
        }),
      );
    }

    const variants = cleaned.environments.flatMap((env) =>
      env.variants.length === 0
        ? []
        : [
            {
              name: env.featureName,
              variants: writable(Variants, env.variants, "The variants are not valid."),
            },
          ],
    );
    if (drafted) {
      for (const { name, variants: sent } of variants)
        drafted.push({ feature: name, action: "patchVariant", payload: { variants: sent } });
    } else if (variants.length > 0) {
      await links.variants.setAll(
        actor,
        project,
        [environment],
        variants.map(({ name, variants: sent }) => ({ name, edit: { asSent: sent } })),
      );
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
    const untagged = held.filter((tag) => !wantedTags.has(key(tag)));
    if (untagged.length > 0) {
      await links.featureTags.removeAll(
        actor,
        untagged.map(({ featureName, type, value }) => ({ name: featureName, tag: { type, value } })),
      );
    }
    const tagged = [];
    for (const tag of cleaned.tags) {
      if (heldTags.has(key(tag))) continue;
      heldTags.add(key(tag));
      tagged.push(tag);
    }
    if (tagged.length > 0) {
      await links.featureTags.addAll(
        actor,
        tagged.map((tag) => ({ name: tag.featureName, tag: writable(Tag, tag, "The tag is not valid.") })),
      );
    }
    for (const field of found.newContextFields) {
      await links.contextFields.create(
        actor,
        writable(NewContextField, contextFieldInput(field), "The context field is not valid."),
      );
    }

    const replaced = (await links.strategies.ofFlags(db, names)).filter(
      (entry) => entry.environment === environment,
    );
    const strategies = cleaned.strategies.map((strategy) => ({
      featureName: strategy.featureName,
      input: writable(Strategy, strategyInput(strategy, found.segmentIds), "The strategy is not valid."),
    }));
    if (drafted) {
      for (const { strategy } of replaced)
        drafted.push({
          feature: strategy.featureName,
          action: "deleteStrategy",
          payload: { id: strategy.id },
        });
      for (const { featureName, input: strategy } of strategies)
        drafted.push({ feature: featureName, action: "addStrategy", payload: strategy });
      for (const env of cleaned.environments)
        drafted.push({
          feature: env.featureName,
          action: "updateEnabled",
          payload: { enabled: env.enabled },
        });
      for (const entry of cleaned.dependencies) {
        for (const parent of entry.dependencies)
          drafted.push({ feature: entry.feature, action: "addDependency", payload: parent });
      }
      return;
    }
    if (replaced.length > 0) {
      await links.strategies.removeAll(
        actor,
        project,
        environment,
        replaced.map(({ strategy }) => ({ featureName: strategy.featureName, id: strategy.id })),
      );
    }
    if (strategies.length > 0) await links.strategies.addAll(actor, project, environment, strategies);
    if (cleaned.environments.length > 0) {
      await links.flagEditing.setEnabledAll(
        actor,
        project,
        environment,
        cleaned.environments.map((env) => ({ featureName: env.featureName, enabled: env.enabled })),
        false,
      );
    }
    const dependencies = cleaned.dependencies.flatMap((entry) =>
      entry.dependencies.map((input) => ({ child: entry.feature, input })),
    );
    if (dependencies.length > 0) await links.dependencies.addAll(actor, project, dependencies);
  }
}
