import { conflict, invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ContextFieldTable } from "../../db/schema.js";
import type { EventService } from "../events/service.js";
import { type ContextFieldRow, contextFieldStore } from "./store.js";

export interface LegalValue {
  value: string;
  description?: string;
}

export interface ContextFieldView {
  name: string;
  description: string | null;
  stickiness: boolean;
  sortOrder: number;
  legalValues: LegalValue[];
  createdAt: string;
  usedInFeatures: number;
  usedInProjects: number;
}

export interface ContextFieldChanges {
  description?: string | null;
  stickiness?: boolean;
  sortOrder?: number;
  legalValues?: LegalValue[];
}

const view = (row: ContextFieldRow): ContextFieldView => ({
  name: row.name,
  description: row.description,
  stickiness: row.stickiness,
  sortOrder: row.sort_order,
  legalValues: row.legal_values,
  createdAt: row.created_at.toISOString(),
  usedInFeatures: row.used_in_features,
  usedInProjects: row.used_in_projects,
});

/** The columns a change touches; what it leaves out stays as it is. */
function columns(changes: ContextFieldChanges): Updateable<ContextFieldTable> {
  const legal = changes.legalValues;
  if (legal) {
    const seen = new Set<string>();
    for (const { value } of legal) {
      if (seen.has(value)) throw invalidField("legalValues", `Legal value ${value} is listed twice`);
      seen.add(value);
    }
  }
  return {
    description: changes.description,
    stickiness: changes.stickiness,
    sort_order: changes.sortOrder,
    legal_values: legal && JSON.stringify(legal),
  };
}

export class ContextFieldService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(): Promise<ContextFieldView[]> {
    return (await contextFieldStore.list(this.db)).map(view);
  }

  async get(name: string): Promise<ContextFieldView> {
    return view(await this.require(this.db, name));
  }

  create(input: ContextFieldChanges & { name: string }, createdBy: string): Promise<ContextFieldView> {
    const values = columns(input);
    return this.events.transaction(async (tx) => {
      if (!(await contextFieldStore.insert(tx.db, { ...values, name: input.name }))) {
        throw nameExists(`A context field named ${input.name} already exists`);
      }
      const created = view(await this.require(tx.db, input.name));
      tx.record({ type: "context-field-created", createdBy, data: created });
      return created;
    });
  }

  update(name: string, changes: ContextFieldChanges, updatedBy: string): Promise<void> {
    const values = columns(changes);
    return this.change(name, () => values, updatedBy);
  }

  /** Adds a legal value, or replaces the one with the same value (its description, say). */
  upsertLegalValue(name: string, legal: LegalValue, updatedBy: string): Promise<void> {
    return this.change(
      name,
      (before) => {
        const others = before.legal_values.filter((existing) => existing.value !== legal.value);
        return columns({ legalValues: [...others, legal] });
      },
      updatedBy,
    );
  }

  removeLegalValue(name: string, value: string, updatedBy: string): Promise<void> {
    return this.change(
      name,
      (before) => {
        const remaining = before.legal_values.filter((existing) => existing.value !== value);
        if (remaining.length === before.legal_values.length) {
          throw notFound(`Context field ${name} has no legal value ${value}`);
        }
        return columns({ legalValues: remaining });
      },
      updatedBy,
    );
  }

  async remove(name: string, deletedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = view(await this.require(tx.db, name));
      const flags = await contextFieldStore.flagsUsing(tx.db, name);
      if (flags.length > 0) {
        throw conflict(
          `Context field ${name} is used in constraints of ${flags.join(", ")} and cannot be deleted`,
        );
      }
      await contextFieldStore.remove(tx.db, name);
      tx.record({ type: "context-field-deleted", createdBy: deletedBy, preData: before });
    });
  }

  /** Answers whether a new field could take the name. */
  async validateName(name: string): Promise<void> {
    if (await contextFieldStore.byName(this.db, name)) {
      throw nameExists(`A context field named ${name} already exists`);
    }
  }

  private async change(
    name: string,
    changesFrom: (before: ContextFieldRow) => Updateable<ContextFieldTable>,
    updatedBy: string,
  ): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = await this.require(tx.db, name);
      await contextFieldStore.update(tx.db, name, changesFrom(before));
      const after = view(await this.require(tx.db, name));
      tx.record({ type: "context-field-updated", createdBy: updatedBy, data: after, preData: view(before) });
    });
  }

  private async require(db: Db, name: string): Promise<ContextFieldRow> {
    const row = await contextFieldStore.byName(db, name);
    if (!row) throw notFound(`Could not find context field ${name}`);
    return row;
  }
}
