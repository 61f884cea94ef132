import { conflict, invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type {} from "./events.js";
import type {
  NewStrategyDefinition,
  StrategyDefinitionUpdate,
  StrategyDefinitionView,
  StrategyParameter,
} from "./schemas.js";
import { type StrategyDefinitionRow, strategyDefinitionStore } from "./store.js";

const view = (row: StrategyDefinitionRow): StrategyDefinitionView => ({
  name: row.name,
  displayName: row.display_name,
  description: row.description,
  editable: !row.built_in,
  deprecated: row.deprecated,
  parameters: row.parameters,
});

const definitions = resource({
  read: async (db: Db, name: string) => {
    const row = await strategyDefinitionStore.byName(db, name);
    return row && view(row);
  },
  missing: (name) => notFound(`Could not find strategy ${name}`),
  events: { created: "strategy-created", updated: "strategy-updated", deleted: "strategy-deleted" },
});

/** The columns a definition is stored in, once its parameter names are known to be distinct. */
function columns(input: StrategyDefinitionUpdate) {
  const parameters = (input.parameters ?? []).map(
    (parameter): StrategyParameter => ({
      name: parameter.name,
      type: parameter.type,
      description: parameter.description ?? "",
      required: parameter.required ?? false,
    }),
  );
  const names = parameters.map((parameter) => parameter.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) throw invalidField("parameters", `Parameter ${twice} is listed twice`);
  return {
    display_name: input.displayName ?? null,
    description: input.description ?? null,
    parameters: JSON.stringify(parameters),
  };
}

export class StrategyDefinitionService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async list(_actor: Actor): Promise<StrategyDefinitionView[]> {
    return (await strategyDefinitionStore.list(this.db)).map(view);
  }

  get(_actor: Actor, name: string): Promise<StrategyDefinitionView> {
    return definitions.require(this.db, name);
  }

  create(actor: Actor, input: NewStrategyDefinition): Promise<StrategyDefinitionView> {
    const values = columns(input);
    return this.events.change(actor, (change) =>
      definitions.create(change, async () => {
        if (!(await strategyDefinitionStore.insert(change.db, { ...values, name: input.name }))) {
          throw nameExists(`A strategy named ${input.name} already exists`);
        }
        return input.name;
      }),
    );
  }

  async update(actor: Actor, name: string, input: StrategyDefinitionUpdate): Promise<void> {
    const values = columns(input);
    await this.events.change(actor, (change) =>
      definitions.update(change, name, async (before) => {
        if (!before.editable) throw validationError(`Built-in strategy ${name} cannot be edited`);
        await strategyDefinitionStore.update(change.db, name, values);
      }),
    );
  }

  async setDeprecated(actor: Actor, name: string, deprecated: boolean): Promise<void> {
    // SDKs fall back to `default`; it has to stay available.
    if (deprecated && name === "default") throw validationError("The default strategy cannot be deprecated");
    await this.events.change(actor, async (change) => {
      await definitions.require(change.db, name);
      await strategyDefinitionStore.update(change.db, name, { deprecated });
      change.record({ type: deprecated ? "strategy-deprecated" : "strategy-reactivated", data: { name } });
    });
  }

  /** Deletes a custom strategy no flag uses: a flag's strategy of an unknown kind would be off for everyone. */
  async remove(actor: Actor, name: string): Promise<void> {
    await this.events.change(actor, (change) =>
      definitions.remove(change, name, async (before) => {
        if (!before.editable) throw validationError(`Built-in strategy ${name} cannot be deleted`);
        const flags = await strategyDefinitionStore.flagsUsing(change.db, name);
        if (flags.length > 0) {
          throw conflict(`Strategy ${name} is used by the flags ${flags.join(", ")} and cannot be deleted`);
        }
        await strategyDefinitionStore.remove(change.db, name);
      }),
    );
  }

  /** For other domains, inside their transaction: a strategy's parameters, or undefined when there is no such strategy. */
  async parametersOf(db: Db, name: string): Promise<StrategyParameter[] | undefined> {
    return (await strategyDefinitionStore.byName(db, name))?.parameters;
  }
}
