import { conflict, invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Selectable, Updateable } from "kysely";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { ContextFieldTable } from "../../db/schema.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type {} from "./events.js";
import type { ContextFieldChanges, ContextFieldView, LegalValue, NewContextField } from "./schemas.js";
import { type ContextFieldRow, contextFieldStore } from "./store.js";

/** A field as defined: what it shows but where strategies use it. */
export type ContextFieldDefinition = Omit<ContextFieldView, "usedInFeatures" | "usedInProjects">;

const definition = (row: Selectable<ContextFieldTable>): ContextFieldDefinition => ({
  name: row.name,
  description: row.description,
  stickiness: row.stickiness,
  sortOrder: row.sort_order,
  legalValues: row.legal_values,
  createdAt: row.created_at.toISOString(),
});

const view = (row: ContextFieldRow): ContextFieldView => ({
  ...definition(row),
  usedInFeatures: row.used_in_features,
  usedInProjects: row.used_in_projects,
});

const fields = resource({
  read: async (db: Db, name: string) => {
    const row = await contextFieldStore.byName(db, name);
    return row && view(row);
  },
  missing: (name) => notFound(`Could not find context field ${name}`),
  events: {
    created: "context-field-created",
    updated: "context-field-updated",
    deleted: "context-field-deleted",
  },
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
    // Only what a legal value is: a field a client adds would be stored and shown back as if meant.
    legal_values:
      legal &&
      JSON.stringify(
        legal.map(({ value, description }) =>
          description === undefined ? { value } : { value, description },
        ),
      ),
  };
}

export class ContextFieldService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(_actor: Actor): Promise<ContextFieldView[]> {
    return (await contextFieldStore.list(this.db)).map(view);
  }

  /** The fields without where they are used, which `list` counts over every strategy. */
  async definitions(_actor: Actor): Promise<ContextFieldDefinition[]> {
    return (await contextFieldStore.definitions(this.db)).map(definition);
  }

  /** The names among `names` that are context fields, read within a change. */
  async definedAmong(db: Db, names: readonly string[]): Promise<Set<string>> {
    const wanted = new Set(names);
    if (wanted.size === 0) return wanted;
    return new Set(
      (await contextFieldStore.definitions(db)).map((row) => row.name).filter((name) => wanted.has(name)),
    );
  }

  get(_actor: Actor, name: string): Promise<ContextFieldView> {
    return fields.require(this.db, name);
  }

  create(actor: Actor, input: NewContextField): Promise<ContextFieldView> {
    const values = columns(input);
    return this.events.change(actor, (change) =>
      fields.create(change, async () => {
        if (!(await contextFieldStore.insert(change.db, { ...values, name: input.name }))) {
          throw nameExists(`A context field named ${input.name} already exists`);
        }
        return input.name;
      }),
    );
  }

  update(actor: Actor, name: string, changes: ContextFieldChanges): Promise<void> {
    const values = columns(changes);
    return this.change(actor, name, () => values);
  }

  /** Adds a legal value, or replaces the one with the same value (its description, say). */
  upsertLegalValue(actor: Actor, name: string, legal: LegalValue): Promise<void> {
    return this.change(actor, name, (before) => {
      const others = before.legalValues.filter((existing) => existing.value !== legal.value);
      return columns({ legalValues: [...others, legal] });
    });
  }

  removeLegalValue(actor: Actor, name: string, value: string): Promise<void> {
    return this.change(actor, name, (before) => {
      const remaining = before.legalValues.filter((existing) => existing.value !== value);
      if (remaining.length === before.legalValues.length) {
        throw notFound(`Context field ${name} has no legal value ${value}`);
      }
      return columns({ legalValues: remaining });
    });
  }

  async remove(actor: Actor, name: string): Promise<void> {
    await this.events.change(actor, (change) =>
      fields.remove(change, name, async () => {
        const flags = await contextFieldStore.flagsUsing(change.db, name);
        if (flags.length > 0) {
          throw conflict(
            `Context field ${name} is used in constraints of ${flags.join(", ")} and cannot be deleted`,
          );
        }
        await contextFieldStore.remove(change.db, name);
      }),
    );
  }

  /** Answers whether a new field could take the name. */
  async validateName(_actor: Actor, name: string): Promise<void> {
    if (await contextFieldStore.byName(this.db, name)) {
      throw nameExists(`A context field named ${name} already exists`);
    }
  }

  private async change(
    actor: Actor,
    name: string,
    changesFrom: (before: ContextFieldView) => Updateable<ContextFieldTable>,
  ): Promise<void> {
    await this.events.change(actor, (change) =>
      fields.update(change, name, (before) => contextFieldStore.update(change.db, name, changesFrom(before))),
    );
  }
}
