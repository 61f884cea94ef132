import { ApiError, conflict, notFound } from "@signalbox/protocol";
import type { Static } from "typebox";
import type { Actor } from "../../access/actor.js";
import { canSee, hiddenProjects, requirePermission } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { StrategyInput } from "../../shared/strategy.js";
import { approvalsIn, gatedEnvironments } from "../change-gate/settings.js";
import { ACTION_SPECS, type Targets } from "../change-requests/actions.js";
import type { ChangeRequestDrafts } from "../change-requests/drafts.js";
import type { ChangeRequestQueries } from "../change-requests/queries.js";
import type { ChangeRequestView } from "../change-requests/schemas.js";
import type { ContextFieldService } from "../context-fields/service.js";
import type { EventService } from "../events/service.js";
import type { DependencyInput } from "../features/dependencies/schemas.js";
import type { DependencyService } from "../features/dependencies/service.js";
import type { FlagRef, FlagService } from "../features/flags/service.js";
import type { SortOrder } from "../features/strategies/schemas.js";
import type { VariantInput } from "../features/variants/schemas.js";
import type { ProjectService } from "../projects/service.js";
import type { StrategyDefinitionService } from "../strategy-definitions/service.js";
import type {} from "./events.js";
import {
  birthsOf,
  ENVIRONMENT_TYPES,
  type EnvironmentState,
  emptyEnvironment,
  type FlagState,
  type HistoryEvent,
  lifeOf,
  type ParentState,
  rewind,
  strategyState,
  type Version,
  versionsOf,
} from "./history.js";
import { differences, planDependencies, planEnvironment, settles, sortParents, written } from "./plan.js";
import type { PlannedChange, RestoreBody, RestorePlan, RestoreResult } from "./schemas.js";

/** What restoring reads and goes through: the services a direct change and a change request use. */
export interface FlagVersionLinks {
  flags: Pick<FlagService, "require" | "requireEnvironment" | "states" | "find">;
  dependencies: Pick<DependencyService, "childrenOf">;
  projects: Pick<ProjectService, "environmentsOf">;
  targets: Targets;
  contextFields: Pick<ContextFieldService, "definedAmong">;
  definitions: Pick<StrategyDefinitionService, "parametersOf">;
  drafts: Pick<ChangeRequestDrafts, "addWithin">;
  queries: Pick<ChangeRequestQueries, "pending">;
}

type Plan = Static<typeof RestorePlan>;

/** A plan, with what it brings each part back to, as a restore writes it. */
interface Planned {
  flag: FlagRef;
  view: Plan;
  /** The environments' states to write, by name (known ones only). */
  targets: Map<string, EnvironmentState>;
  parents: ParentState[] | undefined;
  /** The newest event id read: a restore's own event comes after it. */
  newest: number;
}

const missingVersion = (name: string, id: number) => notFound(`Flag ${name} has no version ${id}`);

/**
 * A flag's history as versions, and restoring one: the state after any change of the flag,
 * for one environment or the whole flag, brought back in one change through the services
 * a direct change uses (or put in change requests where they are required), and recorded
 * as a version of its own.
 */
export class FlagVersionService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly links: FlagVersionLinks,
  ) {}

  /** The flag's versions, newest first, those the caller may see. */
  async list(
    actor: Actor,
    projectId: string,
    name: string,
    page: { limit: number; offset: number },
  ): Promise<{ versions: Version[]; total: number }> {
    const flag = await this.links.flags.require(this.db, projectId, name);
    const versions = versionsOf(lifeOf(await this.events.ofFeature(this.db, flag.name, actor))).reverse();
    return { versions: versions.slice(page.offset, page.offset + page.limit), total: versions.length };
  }

  /** What restoring the version would change, and what stops it, if anything. */
  async preview(
    actor: Actor,
    projectId: string,
    name: string,
    eventId: number,
    environment: string | undefined,
  ): Promise<Plan> {
    return (await this.plan(this.db, actor, projectId, name, eventId, environment)).view;
  }

  /**
   * Restores the version, as one change: the changes the plan lists, applied through the
   * services a direct change uses (which refuse environments that require change requests),
   * then checked to have brought back the version, and recorded as `feature-version-restored`.
   * With `changeRequest`, the changes of an environment that uses change requests go to the
   * caller's draft there instead (the flag's dependencies to the first such environment).
   */
  async restore(
    actor: Actor,
    projectId: string,
    name: string,
    eventId: number,
    body: RestoreBody,
  ): Promise<Static<typeof RestoreResult>> {
    const { environment } = body;
    // The caller's drafts, read before the change: a restore must not be mixed into other changes of the flag.
    const pending = body.changeRequest ? await this.links.queries.pending(actor, projectId) : [];
    const done = await this.events.change(actor, async (change) => {
      const planned = await this.plan(change.db, actor, projectId, name, eventId, environment);
      const { flag, view } = planned;
      if (view.blockers.length > 0) {
        throw new ApiError(
          "ConflictError",
          `Version ${view.version.eventId} of ${flag.name} cannot be restored: ${view.blockers.map((b) => b.message).join(" ")}`,
          view.blockers,
        );
      }
      const drafted = body.changeRequest
        ? await this.drafted(change.db, planned, pending)
        : new Map<string | null, string>();
      const direct = view.changes.filter((entry) => !drafted.has(entry.environment));
      for (const entry of direct) {
        requirePermission(actor, ACTION_SPECS[entry.action].permission, {
          project: flag.project,
          environment: entry.environment ?? undefined,
        });
      }
      for (const entry of direct) await this.apply(actor, flag, entry, planned);
      if (direct.length > 0) await this.verify(change.db, planned, direct);
      // Each draft gets its environment's changes, the dependencies last where they go.
      const byDraft = new Map<string, PlannedChange[]>();
      for (const entry of view.changes) {
        const draft = drafted.get(entry.environment);
        if (draft !== undefined) byDraft.set(draft, [...(byDraft.get(draft) ?? []), entry]);
      }
      const changeRequests: { environment: string; id: number }[] = [];
      for (const [draft, entries] of byDraft) {
        const inputs = entries.map((entry) => ({
          feature: flag.name,
          action: entry.action,
          payload: entry.payload,
        }));
        changeRequests.push({
          environment: draft,
          id: await this.links.drafts.addWithin(change, flag.project, draft, inputs),
        });
      }
      if (direct.length > 0) {
        change.record({
          type: "feature-version-restored",
          project: flag.project,
          featureName: flag.name,
          environment: environment ?? null,
          data: { version: view.version.eventId, environment: environment ?? null },
        });
      }
      return { planned, changeRequests, applied: direct.length > 0 };
    });
    const { planned, changeRequests, applied } = done;
    const { blockers: _none, ...view } = planned.view;
    let restoredAs: number | null = null;
    if (applied) {
      const recorded = await this.events.ofTypes(this.db, ["feature-version-restored"], planned.newest);
      restoredAs = recorded.filter((event) => event.featureName === planned.flag.name).at(-1)?.id ?? null;
    }
    return { ...view, changeRequests, restoredAs };
  }

  /**
   * Where the changes go for review, by environment (null: the flag's dependencies): each
   * environment that uses change requests goes to the caller's draft there, the dependencies
   * to the first of the project's environments that uses them. Refused when such a draft
   * already holds changes to the flag, or when a change request could not bring back what
   * the restore must.
   */
  private async drafted(
    db: Db,
    planned: Planned,
    pending: ChangeRequestView[],
  ): Promise<Map<string | null, string>> {
    const { flag, view } = planned;
    const drafted = new Map<string | null, string>();
    for (const { environment, changes } of view.environments) {
      if (changes.length > 0 && (await approvalsIn(db, flag.project, environment)) !== undefined)
        drafted.set(environment, environment);
    }
    if (view.dependencies && view.dependencies.changes.length > 0) {
      const gated = new Set(await gatedEnvironments(db, flag.project));
      const first = (await this.links.projects.environmentsOf(db, flag.project)).find((env) =>
        gated.has(env),
      );
      if (first !== undefined) drafted.set(null, first);
    }
    for (const environment of new Set(drafted.values())) {
      const draft = pending.find(
        (request) =>
          request.state === "Draft" &&
          request.environment === environment &&
          request.features.some((feature) => feature.name === flag.name),
      );
      if (draft) {
        throw conflict(
          `Your draft change request ${draft.id} in ${environment} already holds changes to ${flag.name}: submit or discard it before restoring a version into a change request.`,
        );
      }
      const target = planned.targets.get(environment);
      const diff = view.environments.find((entry) => entry.environment === environment);
      if (
        target &&
        diff?.changes.some((entry) => entry.action === "patchVariant") &&
        !settles(target.variants)
      ) {
        throw conflict(
          `The variants of ${flag.name} in ${environment} at version ${view.version.eventId} were stored as sent, with weights a change request's patchVariant would settle differently: restore ${environment} directly instead.`,
        );
      }
    }
    return drafted;
  }

  /** Applies one change as a direct change of its kind would, through its service. */
  private async apply(actor: Actor, flag: FlagRef, entry: PlannedChange, planned: Planned): Promise<void> {
    const { strategies, flagEditing, variants, dependencies } = this.links.targets;
    const place = { projectId: flag.project, featureName: flag.name, environment: entry.environment ?? "" };
    switch (entry.action) {
      case "updateEnabled":
        await flagEditing.setEnabled(actor, place, (entry.payload as { enabled: boolean }).enabled, false);
        return;
      case "addStrategy":
        await strategies.add(actor, place, entry.payload as StrategyInput);
        return;
      case "updateStrategy": {
        const { id, ...strategy } = entry.payload as StrategyInput & { id: string };
        await strategies.update(actor, place, id, strategy);
        return;
      }
      case "deleteStrategy":
        await strategies.remove(actor, place, (entry.payload as { id: string }).id);
        return;
      case "reorderStrategy":
        await strategies.reorder(actor, place, entry.payload as SortOrder);
        return;
      case "patchVariant": {
        // Written as the version stored them, weights and all: nothing to settle again.
        const target = planned.targets.get(place.environment)!;
        await variants.set(actor, flag.project, flag.name, [place.environment], {
          asSent: target.variants as VariantInput[],
        });
        return;
      }
      case "addDependency":
        await dependencies.add(actor, flag.project, flag.name, entry.payload as DependencyInput);
        return;
      case "deleteDependency":
        await dependencies.remove(
          actor,
          flag.project,
          flag.name,
          (entry.payload as { feature: string }).feature,
        );
        return;
    }
  }

  /** What was applied directly brought back the version, or nothing is changed. */
  private async verify(db: Db, planned: Planned, applied: PlannedChange[]): Promise<void> {
    const after = await this.now(db, planned.flag);
    const found: string[] = [];
    for (const environment of new Set(applied.map((entry) => entry.environment))) {
      if (environment === null) {
        const parents = after.dependencies.known ? after.dependencies.value : [];
        if (JSON.stringify(sortParents(parents)) !== JSON.stringify(sortParents(planned.parents ?? [])))
          found.push("the dependencies would differ");
        continue;
      }
      const actual = after.environments.get(environment);
      const target = planned.targets.get(environment)!;
      found.push(...differences(environment, actual?.known ? actual.value : emptyEnvironment(), target));
    }
    if (found.length > 0) {
      throw conflict(
        `Version ${planned.view.version.eventId} of ${planned.flag.name} cannot be restored exactly: ${found.join("; ")}. Nothing was changed.`,
      );
    }
  }

  /** The flag as it is now. */
  private async now(db: Db, flag: FlagRef): Promise<FlagState> {
    const { flags, targets } = this.links;
    const [states, strategies, parents] = await Promise.all([
      flags.states(db, [flag.name]),
      targets.strategies.ofFlags(db, [flag.name]),
      targets.dependencies.parentsOf(db, [flag.name]),
    ]);
    const environments: FlagState["environments"] = new Map();
    for (const row of states) {
      environments.set(row.environment, {
        known: true,
        value: {
          enabled: row.enabled,
          strategies: strategies
            .filter((entry) => entry.environment === row.environment)
            .map((entry) => strategyState(entry.strategy)),
          variants: row.variants,
        },
      });
    }
    return { environments, dependencies: { known: true, value: sortParents(parents) } };
  }

  /** The version the event id names, what it would take to restore it, and what stops that. */
  private async plan(
    db: Db,
    actor: Actor,
    projectId: string,
    name: string,
    eventId: number,
    environment: string | undefined,
  ): Promise<Planned> {
    const { flags, projects } = this.links;
    const flag = await flags.require(db, projectId, name);
    if (environment !== undefined) await flags.requireEnvironment(db, flag, environment);
    const history = await this.events.ofFeature(db, flag.name);
    const life = lifeOf(history);
    const visible =
      hiddenProjects(actor).length === 0
        ? undefined
        : new Set((await this.events.ofFeature(db, flag.name, actor)).map((event) => event.id));
    const named = life.find((event) => event.id === eventId);
    if (!named || (visible && !visible.has(eventId))) throw missingVersion(flag.name, eventId);
    // An event names the change it is part of: the version is the state after the whole change.
    const version =
      versionsOf(life).find((entry) => entry.events.some((event) => event.id === eventId)) ??
      ({
        eventId,
        type: named.type,
        createdAt: named.createdAt,
        createdBy: named.createdBy,
        environment: named.environment,
        events: [{ id: named.id, type: named.type, environment: named.environment }],
      } satisfies Version);
    const around = await this.events.ofTypes(db, ENVIRONMENT_TYPES, version.eventId);
    const newer: HistoryEvent[] = [...life.filter((event) => event.id > version.eventId), ...around].sort(
      (a, b) => a.id - b.id,
    );
    const now = await this.now(db, flag);
    const past = rewind(now, flag.project, newer, birthsOf(life));

    const used = new Set(await projects.environmentsOf(db, flag.project));
    const ordered = [...now.environments.keys()].filter((env) => used.has(env));
    const scope =
      environment !== undefined
        ? [environment]
        : [...ordered, ...[...used].filter((env) => !ordered.includes(env))];
    const blockers: { message: string; path?: string }[] = [];
    const targets = new Map<string, EnvironmentState>();
    const environments: Plan["environments"] = [];
    for (const env of scope) {
      const held = now.environments.get(env);
      const current = held?.known ? held.value : emptyEnvironment();
      const then = past.environments.get(env) ?? { known: true, value: emptyEnvironment() };
      if (!then.known) {
        blockers.push({
          message: `What ${flag.name} was in ${env} at version ${version.eventId} is not known: ${then.why}.`,
          path: `environments.${env}`,
        });
        environments.push({ environment: env, current, restored: null, changes: [] });
        continue;
      }
      const target = written(current, then.value);
      targets.set(env, target);
      environments.push({
        environment: env,
        current,
        restored: target,
        changes: planEnvironment(env, current, target),
      });
    }
    let dependencies: Plan["dependencies"] = null;
    let parents: ParentState[] | undefined;
    if (environment === undefined) {
      const current = now.dependencies.known ? now.dependencies.value : [];
      if (past.dependencies.known) {
        parents = sortParents(past.dependencies.value);
        dependencies = { current, restored: parents, changes: planDependencies(current, parents) };
      } else {
        blockers.push({
          message: `What ${flag.name} depended on at version ${version.eventId} is not known: ${past.dependencies.why}.`,
          path: "dependencies",
        });
        dependencies = { current, restored: null, changes: [] };
      }
    }
    const changes = [...environments.flatMap((entry) => entry.changes), ...(dependencies?.changes ?? [])];
    blockers.push(...(await this.gone(db, actor, flag, changes)));
    return {
      flag,
      view: {
        feature: flag.name,
        project: flag.project,
        version,
        environment: environment ?? null,
        environments,
        dependencies,
        changes,
        blockers,
      },
      targets,
      parents,
      newest: Math.max(history.at(-1)?.id ?? 0, around.at(-1)?.id ?? 0),
    };
  }

  /**
   * What the changes need that no longer exists, or no longer fits, each in words: a
   * segment deleted (or now another project's), a strategy type or context field deleted,
   * a parent flag deleted, archived or moved, or dependencies no longer one level deep.
   */
  private async gone(db: Db, actor: Actor, flag: FlagRef, changes: PlannedChange[]) {
    const { targets, definitions, contextFields, flags } = this.links;
    const problems: string[] = [];
    const written = changes
      .filter((entry) => entry.action === "addStrategy" || entry.action === "updateStrategy")
      .map((entry) => entry.payload as StrategyInput);

    const segmentIds = [...new Set(written.flatMap((strategy) => strategy.segments ?? []))].sort(
      (a, b) => a - b,
    );
    let deletedSegments: Map<number, string> | undefined;
    for (const id of segmentIds) {
      const segment = await targets.segments.find(db, id);
      if (!segment || (segment.project !== null && !canSee(actor, segment.project))) {
        deletedSegments ??= new Map(
          (await this.events.ofTypes(db, ["segment-deleted"])).map((event) => {
            const before = event.preData as { id: number; name: string };
            return [before.id, before.name];
          }),
        );
        const was = deletedSegments.get(id);
        problems.push(
          was === undefined
            ? `Segment ${id} no longer exists.`
            : `Segment ${was} (id ${id}) has been deleted.`,
        );
      } else if (segment.project !== null && segment.project !== flag.project) {
        problems.push(
          `Segment ${segment.name} (id ${id}) now belongs to project ${segment.project}: only that project's flags can use it.`,
        );
      }
    }

    for (const type of new Set(written.map((strategy) => strategy.name))) {
      if (!(await definitions.parametersOf(db, type)))
        problems.push(`Strategy type ${type} no longer exists.`);
    }

    // A constraint may name a field no one defined (the API allows it): only one deleted since is missing.
    const fields = [
      ...new Set(written.flatMap((strategy) => (strategy.constraints ?? []).map((c) => c.contextName))),
    ];
    const defined = await contextFields.definedAmong(db, fields);
    const undefinedFields = fields.filter((field) => !defined.has(field));
    if (undefinedFields.length > 0) {
      const deleted = new Set(
        (await this.events.ofTypes(db, ["context-field-deleted"])).map(
          (event) => (event.preData as { name: string }).name,
        ),
      );
      for (const field of undefinedFields) {
        if (deleted.has(field)) problems.push(`Context field ${field} has been deleted.`);
      }
    }

    const parents = changes
      .filter((entry) => entry.action === "addDependency")
      .map((entry) => (entry.payload as { feature: string }).feature);
    for (const name of parents) {
      const parent = await flags.find(db, name);
      if (!parent || (parent.project !== flag.project && !canSee(actor, parent.project)))
        problems.push(`Parent flag ${name} has been deleted.`);
      else if (parent.project !== flag.project)
        problems.push(`Parent flag ${name} has moved to project ${parent.project}.`);
      else if (parent.archived) problems.push(`Parent flag ${name} is archived.`);
      else if ((await targets.dependencies.parentsOf(db, [name])).length > 0)
        problems.push(
          `Parent flag ${name} now depends on another flag itself: dependencies are one level deep.`,
        );
    }
    if (parents.length > 0) {
      const [child] = await this.links.dependencies.childrenOf(db, [flag.name]);
      if (child)
        problems.push(
          `${flag.name} now has children of its own (${child.child}): dependencies are one level deep.`,
        );
    }
    return problems.map((message) => ({ message }));
  }
}
