import { nameExists, notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import { type TagTypeRow, tagTypeStore } from "./store.js";

export interface TagTypeView {
  name: string;
  description: string | null;
  icon: string | null;
}

export interface TagTypeChanges {
  description?: string | null;
  icon?: string | null;
}

const view = (row: TagTypeRow): TagTypeView => ({
  name: row.name,
  description: row.description,
  icon: row.icon,
});

export class TagTypeService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(): Promise<TagTypeView[]> {
    return (await tagTypeStore.list(this.db)).map(view);
  }

  async get(name: string): Promise<TagTypeView> {
    return view(await this.require(this.db, name));
  }

  create(input: TagTypeChanges & { name: string }, createdBy: string): Promise<TagTypeView> {
    return this.events.transaction(async (tx) => {
      const inserted = await tagTypeStore.insert(tx.db, {
        name: input.name,
        description: input.description ?? null,
        icon: input.icon ?? null,
      });
      if (!inserted) throw nameExists(`A tag type named ${input.name} already exists`);
      const created = view(await this.require(tx.db, input.name));
      tx.record({ type: "tag-type-created", createdBy, data: created });
      return created;
    });
  }

  async update(name: string, changes: TagTypeChanges, updatedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = view(await this.require(tx.db, name));
      await tagTypeStore.update(tx.db, name, { description: changes.description, icon: changes.icon });
      const after = view(await this.require(tx.db, name));
      tx.record({ type: "tag-type-updated", createdBy: updatedBy, data: after, preData: before });
    });
  }

  /** Deletes the type with every tag of that type, as the reference does. */
  async remove(name: string, deletedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = view(await this.require(tx.db, name));
      await tagTypeStore.remove(tx.db, name);
      tx.record({ type: "tag-type-deleted", createdBy: deletedBy, preData: before });
    });
  }

  /** Answers whether a new type could take the name. */
  async validateName(name: string): Promise<void> {
    if (await tagTypeStore.byName(this.db, name)) throw nameExists(`A tag type named ${name} already exists`);
  }

  /** For other domains, inside their transaction. */
  async exists(db: Db, name: string): Promise<boolean> {
    return (await tagTypeStore.byName(db, name)) !== undefined;
  }

  private async require(db: Db, name: string): Promise<TagTypeRow> {
    const row = await tagTypeStore.byName(db, name);
    if (!row) throw notFound(`Could not find tag type ${name}`);
    return row;
  }
}
