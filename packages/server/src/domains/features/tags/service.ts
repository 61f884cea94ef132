import { conflict, invalidField, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee, requirePermission } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import type { Change, EventService } from "../../events/service.js";
import type { TagTypeService } from "../../tag-types/service.js";
import type { FlagRef, FlagService } from "../flags/service.js";
import type {} from "./events.js";
import type { FeatureTag, TagInput } from "./schemas.js";
import { tagStore } from "./store.js";

const tagOf = (tag: TagInput): FeatureTag => ({ type: tag.type || "simple", value: tag.value });

/** The tags of flags (`feature_tags`), archived flags' included. */
export class FeatureTagService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<FlagService, "find">,
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
    if (!(await this.tagTypes.exists(change.db, tag.type)))
      throw invalidField("type", `tag type ${tag.type} does not exist`);
    const created = !(await tagStore.held(change.db, tag.type, tag.value));
    const added = await tagStore.add(change.db, flag.name, tag.type, tag.value);
    if (created) change.record({ type: "tag-created", project: flag.project, data: tag });
    if (added) {
      change.record({
        type: "feature-tagged",
        project: flag.project,
        featureName: flag.name,
        data: tag,
        tags: [tag],
      });
    }
    return added;
  }

  add(actor: Actor, name: string, input: TagInput): Promise<FeatureTag> {
    const tag = tagOf(input);
    return this.events.change(actor, async (change) => {
      const flag = await this.requireWritable(change, name);
      if (!(await this.attach(change, flag, tag)))
        throw conflict(`${name} already has the tag ${tag.type}:${tag.value}`);
      return tag;
    });
  }

  async remove(actor: Actor, name: string, input: TagInput): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.detach(change, await this.requireWritable(change, name), tagOf(input));
    });
  }

  /** Adds and removes tags on several flags at once, all or nothing. */
  async change(actor: Actor, names: string[], added: TagInput[], removed: TagInput[]): Promise<void> {
    await this.events.change(actor, async (change) => {
      for (const name of names) {
        const flag = await this.requireWritable(change, name);
        for (const tag of added) await this.attach(change, flag, tagOf(tag));
        for (const tag of removed) await this.detach(change, flag, tagOf(tag));
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

  private async detach(change: Change, flag: FlagRef, tag: FeatureTag): Promise<void> {
    if (await tagStore.remove(change.db, flag.name, tag.type, tag.value)) {
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

  /** The paths name no project: the flag's own decides what the actor may do. */
  private async requireWritable(change: Change, name: string): Promise<FlagRef> {
    const flag = await this.requireFlag(change.db, name, change.actor);
    requirePermission(change.actor, "UPDATE_FEATURE", { project: flag.project });
    return flag;
  }
}
