import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { EnvironmentTable } from "../../db/schema.js";
import type { EventService, Tx } from "../events/service.js";
import { type EnvironmentRow, environmentStore } from "./store.js";

export interface EnvironmentView {
  name: string;
  type: string;
  enabled: boolean;
  sortOrder: number;
  protected: boolean;
  projectCount: number;
}

export interface NewEnvironment {
  name: string;
  type: string;
  enabled?: boolean;
  sortOrder?: number;
}

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

export class EnvironmentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(): Promise<EnvironmentView[]> {
    return (await environmentStore.list(this.db)).map(view);
  }

  async get(name: string): Promise<EnvironmentView> {
    return view(await this.require(this.db, name));
  }

  create(input: NewEnvironment, createdBy: string): Promise<EnvironmentView> {
    return this.events.transaction(async (tx) => {
      const inserted = await environmentStore.insert(tx.db, {
        name: input.name,
        type: input.type,
        enabled: input.enabled ?? true,
        sort_order: input.sortOrder ?? DEFAULT_SORT_ORDER,
      });
      if (!inserted) throw nameExists(`Environment ${input.name} already exists`);
      const created = view(await this.require(tx.db, input.name));
      tx.record({ type: "environment-created", createdBy, environment: created.name, data: created });
      return created;
    });
  }

  update(name: string, input: { type: string; sortOrder?: number }, updatedBy: string) {
    return this.events.transaction((tx) =>
      this.change(tx, name, { type: input.type, sort_order: input.sortOrder }, updatedBy),
    );
  }

  async setEnabled(name: string, enabled: boolean, updatedBy: string): Promise<void> {
    await this.events.transaction((tx) => this.change(tx, name, { enabled }, updatedBy));
  }

  async setSortOrder(orders: Record<string, number>, updatedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const names = Object.keys(orders);
      const [unknown] = await this.missing(tx.db, names);
      if (unknown) throw invalidField(unknown, `Environment ${unknown} does not exist`);
      for (const name of names) await this.change(tx, name, { sort_order: orders[name] }, updatedBy);
    });
  }

  async remove(name: string, deletedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = await this.require(tx.db, name);
      if (before.protected) throw validationError(`Environment ${name} is protected and cannot be deleted`);
      await environmentStore.remove(tx.db, name);
      tx.record({
        type: "environment-deleted",
        createdBy: deletedBy,
        environment: name,
        preData: view(before),
      });
    });
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

  private async change(
    tx: Tx,
    name: string,
    changes: Updateable<EnvironmentTable>,
    updatedBy: string,
  ): Promise<EnvironmentView> {
    const before = await this.require(tx.db, name);
    await environmentStore.update(tx.db, name, changes);
    const after = view(await this.require(tx.db, name));
    tx.record({
      type: "environment-updated",
      createdBy: updatedBy,
      environment: name,
      data: after,
      preData: view(before),
    });
    return after;
  }

  private async require(db: Db, name: string): Promise<EnvironmentRow> {
    const row = await environmentStore.byName(db, name);
    if (!row) throw notFound(`Could not find environment ${name}`);
    return row;
  }
}
