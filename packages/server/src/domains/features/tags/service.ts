import { conflict, invalidField, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee, requirePermission } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { Change, EventService } from "../../events/service.js";
import type { TagTypeService } from "../../tag-types/service.js";
import type { FlagRef, FlagService } from "../flags/service.js";
import type {} from "./events.js";
import type { FeatureTag, TagInput } from "./schemas.js";
import { type FlagTag, tagStore } from "./store.js";

const tagOf = (tag: TagInput): FeatureTag => ({ type: tag.type || "simple", value: tag.value });

/** The tags of flags (`feature_tags`), archived flags' included. */
export class FeatureTagService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<FlagService, "find" | "findAll">,
    private readonly tagTypes: Pick<TagTypeService, "exists">,
  ) {}

  async list(actor: Actor, name: string): Promise<FeatureTag[]> {
    await this.requireFlag(this.db, name, actor);
    return (await tagStore.ofFlags(this.db, [name])).map((row) => ({
      type: row.tag_type,
      value: row.tag_value,
    }));
  }

  /**
   * Tags a flag inside a running change (creation uses this too); false when it had the tag.
   * A tag exists while flags hold it: the first to be given it creates it, recorded as the
   * reference records a tag it creates on first use, but in that flag's project, so that a
   * private project's tag stays out of the event log of those outside it.
   */
  async attach(change: Change, flag: FlagRef, tag: FeatureTag): Promise<boolean> {
    const [added] = await this.attachAll(change, [{ flag, tag }]);
    return added!;
  }

  /** Tags flags as `attach` tags each, one after the other, written together; says of each whether it added the tag. */
  async attachAll(change: Change, entries: { flag: FlagRef; tag: FeatureTag }[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    const types = [...new Set(entries.map((entry) => entry.tag.type))];
    const known = await Promise.all(types.map((type) => this.tagTypes.exists(change.db, type)));
    const missing = entries.find((entry) => !known[types.indexOf(entry.tag.type)]);
    if (missing) throw invalidField("type", `tag type ${missing.tag.type} does not exist`);
    const held = new Set(
      (
        await tagStore.held(
          change.db,
          entries.map((entry) => entry.tag),
        )
      ).map(tagKey),
    );
    const added = new Set(
      (
        await tagStore.add(
          change.db,
          entries.map(({ flag, tag }) => ({ name: flag.name, ...tag })),
        )
      ).map(flagTagKey),
    );
    return entries.map(({ flag, tag }) => {
      if (!held.has(tagKey(tag))) {
        held.add(tagKey(tag));
        change.record({ type: "tag-created", project: flag.project, data: tag });
      }
      // A flag given the same tag twice gets it once.
      if (!added.delete(flagTagKey({ name: flag.name, ...tag }))) return false;
      change.record({
        type: "feature-tagged",
        project: flag.project,
        featureName: flag.name,
        data: tag,
        tags: [tag],
      });
      return true;
    });
  }

  add(actor: Actor, name: string, input: TagInput): Promise<FeatureTag> {
    return this.addAll(actor, [{ name, tag: input }]).then(([tag]) => tag!);
  }

  /** Tags flags as `add` tags each, written together: a tag a flag has already is refused. */
  addAll(actor: Actor, entries: { name: string; tag: TagInput }[]): Promise<FeatureTag[]> {
    const tags = entries.map((entry) => tagOf(entry.tag));
    return this.events.change(actor, async (change) => {
      const flags = await this.requireWritable(
        change,
        entries.map((entry) => entry.name),
      );
      const added = await this.attachAll(
        change,
        flags.map((flag, index) => ({ flag, tag: tags[index]! })),
      );
      const refused = added.indexOf(false);
      if (refused >= 0) {
        const { type, value } = tags[refused]!;
        throw conflict(`${entries[refused]!.name} already has the tag ${type}:${value}`);
      }
      return tags;
    });
  }

  async remove(actor: Actor, name: string, input: TagInput): Promise<void> {
    await this.removeAll(actor, [{ name, tag: input }]);
  }

  /** Takes tags off flags as `remove` takes each, written together. */
  async removeAll(actor: Actor, entries: { name: string; tag: TagInput }[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flags = await this.requireWritable(
        change,
        entries.map((entry) => entry.name),
      );
      await this.detachAll(
        change,
        flags.map((flag, index) => ({ flag, tag: tagOf(entries[index]!.tag) })),
      );
    });
  }

  /** Adds and removes tags on several flags at once, all or nothing. */
  async change(actor: Actor, names: string[], added: TagInput[], removed: TagInput[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      for (const flag of await this.requireWritable(change, names)) {
        for (const tag of added) await this.attach(change, flag, tagOf(tag));
        await this.detachAll(
          change,
          removed.map((tag) => ({ flag, tag: tagOf(tag) })),
        );
      }
    });
  }

  /** The tags of several flags, for their views and the listing's tag filter. */
  async ofFlags(db: Db, names: string[]): Promise<({ featureName: string } & FeatureTag)[]> {
    return (await tagStore.ofFlags(db, names)).map((row) => ({
      featureName: row.feature_name,
      type: row.tag_type,
      value: row.tag_value,
    }));
  }

  /** The flags among `names` with any of the tags, given as `type:value`. */
  async taggedAmong(db: Db, names: string[], tags: string[]): Promise<Set<string>> {
    const rows = await tagStore.ofFlags(db, names);
    return new Set(
      rows.filter((row) => tags.includes(`${row.tag_type}:${row.tag_value}`)).map((row) => row.feature_name),
    );
  }

  private async detachAll(change: Change, entries: { flag: FlagRef; tag: FeatureTag }[]): Promise<void> {
    const removed = new Set(
      (
        await tagStore.remove(
          change.db,
          entries.map(({ flag, tag }) => ({ name: flag.name, ...tag })),
        )
      ).map(flagTagKey),
    );
    for (const { flag, tag } of entries) {
      if (!removed.delete(flagTagKey({ name: flag.name, ...tag }))) continue;
      change.record({
        type: "feature-untagged",
        project: flag.project,
        featureName: flag.name,
        preData: tag,
        tags: [tag],
      });
    }
  }

  /** A flag of a private project the actor may not see does not exist for them. */
  private async requireFlag(db: Db, name: string, actor: Actor): Promise<FlagRef> {
    const flag = await this.flags.find(db, name);
    if (!flag || !canSee(actor, flag.project)) throw notFound(`Could not find feature flag ${name}`);
    return flag;
  }

  /** The paths name no project: each flag's own decides what the actor may do. */
  private async requireWritable(change: Change, names: string[]): Promise<FlagRef[]> {
    const found = await this.flags.findAll(change.db, names);
    return names.map((name) => {
      const flag = found.get(name);
      if (!flag || !canSee(change.actor, flag.project)) throw notFound(`Could not find feature flag ${name}`);
      requirePermission(change.actor, "UPDATE_FEATURE", { project: flag.project });
      return flag;
    });
  }
}

const tagKey = (tag: FeatureTag) => JSON.stringify([tag.type, tag.value]);
const flagTagKey = (tag: FlagTag) => JSON.stringify([tag.name, tag.type, tag.value]);
