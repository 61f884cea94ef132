import { nameExists, notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type {} from "./events.js";
import type { NewTagType, TagTypeChanges, TagTypeView } from "./schemas.js";
import { type TagTypeRow, tagTypeStore } from "./store.js";

const view = (row: TagTypeRow): TagTypeView => ({
  name: row.name,
  description: row.description,
  icon: row.icon,
});

const tagTypes = resource({
  read: async (db: Db, name: string) => {
    const row = await tagTypeStore.byName(db, name);
    return row && view(row);
  },
  missing: (name) => notFound(`Could not find tag type ${name}`),
  events: { created: "tag-type-created", updated: "tag-type-updated", deleted: "tag-type-deleted" },
});

export class TagTypeService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(_actor: Actor): Promise<TagTypeView[]> {
    return (await tagTypeStore.list(this.db)).map(view);
  }

  get(_actor: Actor, name: string): Promise<TagTypeView> {
    return tagTypes.require(this.db, name);
  }

  create(actor: Actor, input: NewTagType): Promise<TagTypeView> {
    return this.events.change(actor, (change) =>
      tagTypes.create(change, async () => {
        const inserted = await tagTypeStore.insert(change.db, {
          name: input.name,
          description: input.description ?? null,
          icon: input.icon ?? null,
        });
        if (!inserted) throw nameExists(`A tag type named ${input.name} already exists`);
        return input.name;
      }),
    );
  }

  async update(actor: Actor, name: string, changes: TagTypeChanges): Promise<void> {
    await this.events.change(actor, (change) =>
      tagTypes.update(change, name, () =>
        tagTypeStore.update(change.db, name, { description: changes.description, icon: changes.icon }),
      ),
    );
  }

  /** Deletes the type with every tag of that type, as the reference does. */
  async remove(actor: Actor, name: string): Promise<void> {
    await this.events.change(actor, (change) =>
      tagTypes.remove(change, name, () => tagTypeStore.remove(change.db, name)),
    );
  }

  /** Answers whether a new type could take the name. */
  async validateName(_actor: Actor, name: string): Promise<void> {
    if (await tagTypeStore.byName(this.db, name)) throw nameExists(`A tag type named ${name} already exists`);
  }

  /** For other domains, inside their transaction. */
  async exists(db: Db, name: string): Promise<boolean> {
    return (await tagTypeStore.byName(db, name)) !== undefined;
  }
}
