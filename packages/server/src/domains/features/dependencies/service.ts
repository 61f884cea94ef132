import { invalidField, noAccess, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import type { Db } from "../../../db/connection.js";
import { refuseUnreviewed } from "../../change-gate/gate.js";
import type { Change, EventService } from "../../events/service.js";
import type { FlagService } from "../flags/service.js";
import type {} from "./events.js";
import type { DependencyInput } from "./schemas.js";
import { dependencyStore } from "./store.js";

type ParentLink = { feature: string; enabled: boolean; variants: string[] };

const byParent = (a: ParentLink, b: ParentLink) =>
  a.feature < b.feature ? -1 : a.feature > b.feature ? 1 : 0;

/** The one answer for a parent that is not an active flag of the child's project. */
export const missingParent = (project: string, parent: string) =>
  notFound(`Project ${project} has no flag ${parent}`);

/** Parent flags (`feature_dependencies`): one level deep, within one project. */
export class DependencyService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<
      FlagService,
      "require" | "requireAll" | "find" | "findAll" | "activeAmong" | "inProject"
    >,
  ) {}

  async add(actor: Actor, projectId: string, child: string, input: DependencyInput): Promise<void> {
    await this.addAll(actor, projectId, [{ child, input }]);
  }

  /**
   * Adds parents to flags of a project as `add` adds each, one after the other (a link
   * added first counts for those after it), written together.
   */
  async addAll(actor: Actor, projectId: string, entries: { child: string; input: DependencyInput }[]) {
    const links = entries.map(({ child, input }) => {
      const enabled = input.enabled ?? true;
      const variants = input.variants ?? [];
      if (!enabled && variants.length > 0) {
        throw invalidField("variants", "variants can only be required of a parent that must be enabled");
      }
      return { child, parent: input.feature, enabled, variants };
    });
    await this.events.change(actor, async (change) => {
      const children = await this.flags.requireAll(
        change.db,
        projectId,
        links.map((link) => link.child),
      );
      await refuseUnreviewed(change, projectId);
      // A parent is found in the child's project first: whether a flag elsewhere (perhaps in a
      // private project) exists, or has parents of its own, is not this caller's to learn.
      const parents = await this.flags.findAll(
        change.db,
        links.map((link) => link.parent),
      );
      const withChildren = new Set(
        (
          await this.childrenOf(
            change.db,
            children.map((flag) => flag.name),
          )
        ).map((link) => link.parent),
      );
      const withParents = new Set(
        (await dependencyStore.parentsOf(change.db, [...parents.keys()])).map((link) => link.child),
      );
      for (const link of links) {
        const parent = parents.get(link.parent);
        if (!parent || parent.archived || parent.project !== projectId)
          throw missingParent(projectId, link.parent);
        if (link.parent === link.child) throw noAccess("a flag cannot depend on itself");
        if (withChildren.has(link.child)) {
          throw noAccess(`${link.child} has children of its own: dependencies are one level deep`);
        }
        if (withParents.has(link.parent)) {
          throw noAccess(`${link.parent} depends on another flag itself: dependencies are one level deep`);
        }
        withChildren.add(link.parent);
        withParents.add(link.child);
      }
      // Each event carries the child's parents before its link, as if links were added one at a time.
      const held = await this.parentLists(
        change.db,
        links.map((link) => link.child),
      );
      await dependencyStore.add(change.db, links);
      for (const { child, parent, enabled, variants } of links) {
        const before = held.get(child)!;
        const after = [
          ...before.filter((link) => link.feature !== parent),
          { feature: parent, enabled, variants },
        ].sort(byParent);
        held.set(child, after);
        change.record({
          type: "feature-dependency-added",
          project: projectId,
          featureName: child,
          data: { feature: parent, enabled, variants },
          preData: { parents: before },
        });
      }
    });
  }

  /** Removes one parent, or all of them when `parent` is undefined. */
  async remove(actor: Actor, projectId: string, child: string, parent: string | undefined): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.require(change.db, projectId, child);
      await refuseUnreviewed(change, flag.project);
      const before = (await this.parentLists(change.db, [child])).get(child)!;
      const removed = await dependencyStore.remove(change.db, child, parent);
      if (parent && removed === 0) throw notFound(`${child} does not depend on ${parent}`);
      const subject = { project: flag.project, featureName: child, preData: { parents: before } };
      change.record(
        parent
          ? { type: "feature-dependency-removed", ...subject, data: { feature: parent } }
          : { type: "feature-dependencies-removed", ...subject },
      );
    });
  }

  /**
   * Before a flag is deleted for good: its children's links to it (the children are archived
   * by then) go first, each recorded on its child, whose history would otherwise lose the
   * link unseen when the deletion cascades.
   */
  async dropParent(change: Change, parent: string): Promise<void> {
    for (const { child } of await dependencyStore.childrenOf(change.db, [parent])) {
      const flag = await this.flags.find(change.db, child);
      const before = (await this.parentLists(change.db, [child])).get(child)!;
      await dependencyStore.remove(change.db, child, parent);
      change.record({
        type: "feature-dependency-removed",
        project: flag?.project ?? null,
        featureName: child,
        data: { feature: parent },
        preData: { parents: before },
      });
    }
  }

  /** Whether any flag of the project, archived ones too, depends on another. */
  async hasAny(_actor: Actor, projectId: string): Promise<boolean> {
    const names = (await this.flags.inProject(this.db, projectId)).map((flag) => flag.name);
    return dependencyStore.anyChildAmong(this.db, names);
  }

  /** The parents of several flags, for their views. */
  async parentsOf(db: Db, children: string[]) {
    return (await dependencyStore.parentsOf(db, children)).map((row) => ({
      child: row.child,
      feature: row.parent,
      enabled: row.enabled,
      variants: row.variants,
    }));
  }

  /** Each child's parents, by parent name: what the dependency events carry as their preData. */
  private async parentLists(db: Db, children: string[]): Promise<Map<string, ParentLink[]>> {
    const lists = new Map(children.map((child) => [child, [] as ParentLink[]]));
    for (const row of await dependencyStore.parentsOf(db, [...lists.keys()])) {
      lists.get(row.child)!.push({ feature: row.parent, enabled: row.enabled, variants: row.variants });
    }
    return lists;
  }

  /** The active flags that depend on any of `parents`. */
  async childrenOf(db: Db, parents: string[]): Promise<{ parent: string; child: string }[]> {
    const links = await dependencyStore.childrenOf(db, parents);
    const active = new Set(await this.flags.activeAmong(db, [...new Set(links.map((link) => link.child))]));
    return links.filter((link) => active.has(link.child));
  }
}
