import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import { type StrategyDefinitionRow, strategyDefinitionStore } from "./store.js";

export interface StrategyParameter {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

export interface StrategyDefinitionView {
  name: string;
  displayName: string | null;
  description: string | null;
  editable: boolean;
  deprecated: boolean;
  parameters: StrategyParameter[];
}

export interface StrategyDefinitionInput {
  displayName?: string | null;
  description?: string | null;
  parameters?: { name: string; type: string; description?: string; required?: boolean }[];
}

const view = (row: StrategyDefinitionRow): StrategyDefinitionView => ({
  name: row.name,
  displayName: row.display_name,
  description: row.description,
  editable: !row.built_in,
  deprecated: row.deprecated,
  parameters: row.parameters,
});

/** The columns a definition is stored in, once its parameter names are known to be distinct. */
function columns(input: StrategyDefinitionInput) {
  const parameters = (input.parameters ?? []).map((parameter) => ({
    name: parameter.name,
    type: parameter.type,
    description: parameter.description ?? "",
    required: parameter.required ?? false,
  }));
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

  async list(): Promise<StrategyDefinitionView[]> {
    return (await strategyDefinitionStore.list(this.db)).map(view);
  }

  async get(name: string): Promise<StrategyDefinitionView> {
    return view(await this.require(this.db, name));
  }

  create(
    input: StrategyDefinitionInput & { name: string },
    createdBy: string,
  ): Promise<StrategyDefinitionView> {
    const values = columns(input);
    return this.events.transaction(async (tx) => {
      if (!(await strategyDefinitionStore.insert(tx.db, { ...values, name: input.name }))) {
        throw nameExists(`A strategy named ${input.name} already exists`);
      }
      const created = view(await this.require(tx.db, input.name));
      tx.record({ type: "strategy-created", createdBy, data: created });
      return created;
    });
  }

  async update(name: string, input: StrategyDefinitionInput, updatedBy: string): Promise<void> {
    const values = columns(input);
    await this.events.transaction(async (tx) => {
      const before = await this.require(tx.db, name);
      if (before.built_in) throw validationError(`Built-in strategy ${name} cannot be edited`);
      await strategyDefinitionStore.update(tx.db, name, values);
      const after = view(await this.require(tx.db, name));
      tx.record({ type: "strategy-updated", createdBy: updatedBy, data: after, preData: view(before) });
    });
  }

  async setDeprecated(name: string, deprecated: boolean, updatedBy: string): Promise<void> {
    // SDKs fall back to `default`; it has to stay available.
    if (deprecated && name === "default") throw validationError("The default strategy cannot be deprecated");
    await this.events.transaction(async (tx) => {
      await this.require(tx.db, name);
      await strategyDefinitionStore.update(tx.db, name, { deprecated });
      tx.record({
        type: deprecated ? "strategy-deprecated" : "strategy-reactivated",
        createdBy: updatedBy,
        data: { name },
      });
    });
  }

  /** For other domains, inside their transaction: a strategy's parameters, or undefined when there is no such strategy. */
  async parametersOf(db: Db, name: string): Promise<StrategyParameter[] | undefined> {
    return (await strategyDefinitionStore.byName(db, name))?.parameters;
  }

  private async require(db: Db, name: string): Promise<StrategyDefinitionRow> {
    const row = await strategyDefinitionStore.byName(db, name);
    if (!row) throw notFound(`Could not find strategy ${name}`);
    return row;
  }
}
