import { conflict, invalidField, notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { EventService, Tx } from "../events/service.js";
import { type FeatureRow, featureStore } from "./store.js";

export interface TagInput {
  type?: string;
  value: string;
}

const tagOf = (tag: TagInput) => ({ type: tag.type || "simple", value: tag.value });

/** What the features domain asks of the tag-types domain. */
export interface TagTypeLookup {
  exists(db: Db, name: string): Promise<boolean>;
}

async function requireAnyFeature(db: Db, name: string): Promise<FeatureRow> {
  const row = await featureStore.find(db, name);
  if (!row) throw notFound(`Could not find feature flag ${name}`);
  return row;
}

export class FeatureTagService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly tagTypes: TagTypeLookup,
  ) {}

  async list(name: string) {
    await requireAnyFeature(this.db, name);
    const rows = await featureStore.tags(this.db, [name]);
    return rows.map((row) => ({ type: row.tag_type, value: row.tag_value }));
  }

  /** Tags a flag inside a running transaction (creation uses this too). */
  async attach(tx: Tx, row: FeatureRow, type: string, value: string, by: string): Promise<boolean> {
    if (!(await this.tagTypes.exists(tx.db, type)))
      throw invalidField("type", `tag type ${type} does not exist`);
    const added = await featureStore.addTag(tx.db, row.name, type, value);
    if (added) {
      tx.record({
        type: "feature-tagged",
        createdBy: by,
        project: row.project,
        featureName: row.name,
        data: { type, value },
        tags: [{ type, value }],
      });
    }
    return added;
  }

  async add(name: string, input: TagInput, by: string) {
    const tag = tagOf(input);
    return this.events.transaction(async (tx) => {
      const row = await requireAnyFeature(tx.db, name);
      if (!(await this.attach(tx, row, tag.type, tag.value, by)))
        throw conflict(`${name} already has the tag ${tag.type}:${tag.value}`);
      return tag;
    });
  }

  async remove(name: string, input: TagInput, by: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const row = await requireAnyFeature(tx.db, name);
      await this.detach(tx, row, tagOf(input), by);
    });
  }

  /** Adds and removes tags on several flags at once, all or nothing. */
  async change(names: string[], added: TagInput[], removed: TagInput[], by: string) {
    await this.events.transaction(async (tx) => {
      for (const name of names) {
        const row = await requireAnyFeature(tx.db, name);
        for (const tag of added.map(tagOf)) await this.attach(tx, row, tag.type, tag.value, by);
        for (const tag of removed.map(tagOf)) await this.detach(tx, row, tag, by);
      }
    });
  }

  private async detach(
    tx: Tx,
    row: FeatureRow,
    tag: { type: string; value: string },
    by: string,
  ): Promise<void> {
    if (await featureStore.removeTag(tx.db, row.name, tag.type, tag.value)) {
      tx.record({
        type: "feature-untagged",
        createdBy: by,
        project: row.project,
        featureName: row.name,
        preData: tag,
        tags: [tag],
      });
    }
  }
}
