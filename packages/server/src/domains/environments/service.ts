import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type {} from "./events.js";
import type { EnvironmentUpdate, EnvironmentView, NewEnvironment, SortOrder } from "./schemas.js";
import { type EnvironmentRow, environmentStore } from "./store.js";

// The reference's default position: after every environment given an explicit order.
const DEFAULT_SORT_ORDER = 9999;

const view = (row: EnvironmentRow): EnvironmentView => ({
  name: row.name,
  type: row.type,
  enabled: row.enabled,
  sortOrder: row.sort_order,
  protected: row.protected,
  projectCount: row.project_count,
});

const environments = resource({
  read: async (db: Db, name: string) => {
    const row = await environmentStore.byName(db, name);
    return row && view(row);
  },
  missing: (name) => notFound(`Could not find environment ${name}`),
  subject: (environment) => ({ environment: environment.name }),
  events: { created: "environment-created", updated: "environment-updated", deleted: "environment-deleted" },
});

export class EnvironmentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(_actor: Actor): Promise<EnvironmentView[]> {
    return (await environmentStore.list(this.db)).map(view);
  }

  get(_actor: Actor, name: string): Promise<EnvironmentView> {
    return environments.require(this.db, name);
  }

  create(actor: Actor, input: NewEnvironment): Promise<EnvironmentView> {
    return this.events.change(actor, (change) =>
      environments.create(change, async () => {
        const inserted = await environmentStore.insert(change.db, {
          name: input.name,
          type: input.type,
          enabled: input.enabled ?? true,
          sort_order: input.sortOrder ?? DEFAULT_SORT_ORDER,
        });
        if (!inserted) throw nameExists(`Environment ${input.name} already exists`);
        return input.name;
      }),
    );
  }

  update(actor: Actor, name: string, input: EnvironmentUpdate): Promise<EnvironmentView> {
    return this.events.change(actor, (change) =>
      environments.update(change, name, () =>
        environmentStore.update(change.db, name, { type: input.type, sort_order: input.sortOrder }),
      ),
    );
  }

  async setEnabled(actor: Actor, name: string, enabled: boolean): Promise<void> {
    await this.events.change(actor, (change) =>
      environments.update(change, name, () => environmentStore.update(change.db, name, { enabled })),
    );
  }

  async setSortOrder(actor: Actor, orders: SortOrder): Promise<void> {
    await this.events.change(actor, async (change) => {
      const names = Object.keys(orders);
      const [unknown] = await this.missing(change.db, names);
      if (unknown) throw invalidField(unknown, `Environment ${unknown} does not exist`);
      for (const name of names) {
        await environments.update(change, name, () =>
          environmentStore.update(change.db, name, { sort_order: orders[name] }),
        );
      }
    });
  }

  async remove(actor: Actor, name: string): Promise<void> {
    await this.events.change(actor, (change) =>
      environments.remove(change, name, async (before) => {
        if (before.protected) throw validationError(`Environment ${name} is protected and cannot be deleted`);
        await environmentStore.remove(change.db, name);
      }),
    );
  }

  /** The names among `names` that are not environments. */
  async missing(db: Db, names: string[]): Promise<string[]> {
    const known = new Set(await environmentStore.existing(db, names));
    return names.filter((name) => !known.has(name));
  }

  /** The environments a new project gets when it names none. */
  enabledNames(db: Db): Promise<string[]> {
    return environmentStore.enabledNames(db);
  }
}
