import { type Context, compile, type Snapshot } from "@signalbox/engine";
import {
  type FeatureDefinition,
  type SegmentDefinition,
  type StrategyDefinition,
  validationError,
} from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { ClientFeaturesService } from "../client-api/service.js";
import type { StrategyView } from "../features/strategies/schemas.js";
import type { StrategyService } from "../features/strategies/service.js";
import { combinationCount, combinations, contextChoices } from "./combinations.js";
import type {
  AdvancedPlaygroundItem,
  AdvancedPlaygroundRequest,
  PlaygroundFeature,
  PlaygroundRequest,
} from "./schemas.js";
import { featureView } from "./view.js";

/**
 * The most evaluations (environments × flags × contexts) one advanced request may ask
 * for: the reference's default limit.
 */
const EVALUATION_LIMIT = 15_000;

interface Flag {
  definition: FeatureDefinition;
  project: string;
}

/** One environment's flags in the projects asked for, as SDKs are sent them. */
interface Selection {
  environment: string;
  flags: Flag[];
  segments: SegmentDefinition[];
}

/** The same flags with the details SDKs are not sent, compiled. */
interface Evaluator {
  environment: string;
  flags: Flag[];
  snapshot: Snapshot;
}

export interface AdvancedPlayground {
  features: { name: string; projectId: string; environments: Record<string, AdvancedPlaygroundItem[]> }[];
  invalidContextProperties: string[];
}

const disabledStrategy = (row: StrategyView): StrategyDefinition => ({
  id: row.id,
  name: row.name,
  ...(row.title ? { title: row.title } : {}),
  disabled: true,
  parameters: row.parameters,
  constraints: row.constraints,
  segments: row.segments,
  variants: row.variants,
});

/**
 * The flag as SDKs are sent it, with what the playground shows besides: each strategy's id
 * and title, and the disabled strategies in their place. Those come from the strategies'
 * own rows, read apart from the document: if a change committed in between makes them
 * disagree, the document, which is what SDKs evaluate, is shown as it is.
 */
function withStrategyDetails(definition: FeatureDefinition, rows: StrategyView[]): FeatureDefinition {
  const served = definition.strategies ?? [];
  const active = rows.filter((row) => !row.disabled);
  if (active.length !== served.length || active.some((row, index) => row.name !== served[index]!.name)) {
    return definition;
  }
  let next = 0;
  const strategies = rows.map((row) =>
    row.disabled
      ? disabledStrategy(row)
      : { ...served[next++]!, id: row.id, ...(row.title ? { title: row.title } : {}) },
  );
  return { ...definition, strategies };
}

/**
 * The context the engine evaluates: `currentTime` read once for the whole request when not
 * given, so that every date constraint compares the same instant, and shows which.
 */
const evaluationContext = (context: Record<string, unknown>, now: Date): Context => ({
  ...context,
  currentTime: typeof context.currentTime === "string" ? context.currentTime : now.toISOString(),
});

/**
 * Evaluates every flag the caller may see for a context, with the reasons, as the
 * reference's playground does. It reads the same documents the SDK API serves and
 * evaluates them with the same engine, so what it says is what SDKs do.
 */
export class PlaygroundService {
  constructor(
    private readonly db: Db,
    private readonly features: ClientFeaturesService,
    private readonly strategies: Pick<StrategyService, "ofFlags">,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async evaluate(actor: Actor, request: PlaygroundRequest): Promise<PlaygroundFeature[]> {
    const now = this.clock();
    const selected = await this.select(actor, request.projects ?? "*", [request.environment]);
    const evaluator = (await this.compile(selected))[0]!;
    const context = evaluationContext(request.context, now);
    return evaluator.flags.map((flag) =>
      featureView(evaluator.snapshot.explain(flag.definition.name, context), flag.definition, {
        project: flag.project,
        environment: request.environment,
      }),
    );
  }

  async evaluateAdvanced(actor: Actor, request: AdvancedPlaygroundRequest): Promise<AdvancedPlayground> {
    const now = this.clock();
    const choices = contextChoices(request.context);
    const projects = request.projects ?? "*";
    // Every environment holds the same flags: the first tells how many evaluations are asked.
    const [first, ...others] = request.environments;
    const [head] = await this.select(actor, projects, [first!]);
    const flagCount = head!.flags.length;
    const contextCount = combinationCount(choices);
    const total = request.environments.length * flagCount * contextCount;
    if (total > EVALUATION_LIMIT) {
      throw validationError(
        `Rejecting evaluation as it would generate ${total} combinations exceeding ${EVALUATION_LIMIT} limit. ` +
          `Please reduce the number of selected environments (${request.environments.length}), features (${flagCount}), context field combinations (${contextCount}).`,
      );
    }
    // Without flags there is nothing to evaluate, however many contexts the fields make.
    if (flagCount === 0) return { features: [], invalidContextProperties: choices.invalid };
    const selected = [head!, ...(await this.select(actor, projects, others))];
    const contexts = combinations(choices);
    const byName = new Map<
      string,
      { name: string; projectId: string; environments: Map<string, AdvancedPlaygroundItem[]> }
    >();
    for (const evaluator of await this.compile(selected)) {
      for (const flat of contexts) {
        const context = evaluationContext(flat, now);
        for (const flag of evaluator.flags) {
          const name = flag.definition.name;
          const item: AdvancedPlaygroundItem = {
            ...featureView(evaluator.snapshot.explain(name, context), flag.definition, {
              project: flag.project,
              environment: evaluator.environment,
            }),
            environment: evaluator.environment,
            context: flat,
          };
          let entry = byName.get(name);
          if (!entry) {
            entry = { name, projectId: flag.project, environments: new Map() };
            byName.set(name, entry);
          }
          const items = entry.environments.get(evaluator.environment) ?? [];
          items.push(item);
          entry.environments.set(evaluator.environment, items);
        }
      }
    }
    return {
      // Environment names are the caller's: a map, then own properties, whatever they are called.
      features: [...byName.values()].map((entry) => ({
        ...entry,
        environments: Object.fromEntries(entry.environments),
      })),
      invalidContextProperties: choices.invalid,
    };
  }

  /** The flags of each environment in the projects asked for, among those the actor may see. */
  private select(actor: Actor, projects: "*" | string[], environments: string[]): Promise<Selection[]> {
    return Promise.all(
      environments.map(async (environment) => {
        const content = await this.features.content(environment);
        const flags = content.features
          .filter(
            (feature) =>
              (projects === "*" || projects.includes(feature.project)) && canSee(actor, feature.project),
          )
          .map(({ definition, project }): Flag => ({ definition, project }));
        return { environment, flags, segments: [...content.segments.values()] };
      }),
    );
  }

  private async compile(selected: Selection[]): Promise<Evaluator[]> {
    const names = [...new Set(selected.flatMap(({ flags }) => flags.map((flag) => flag.definition.name)))];
    const rows = names.length === 0 ? [] : await this.strategies.ofFlags(this.db, names);
    const rowsOf = new Map<string, StrategyView[]>();
    for (const { environment, strategy } of rows) {
      const key = `${strategy.featureName}\u0000${environment}`;
      const list = rowsOf.get(key);
      if (list) list.push(strategy);
      else rowsOf.set(key, [strategy]);
    }
    return selected.map(({ environment, flags, segments }) => {
      const detailed = flags.map((flag) => ({
        ...flag,
        definition: withStrategyDetails(
          flag.definition,
          rowsOf.get(`${flag.definition.name}\u0000${environment}`) ?? [],
        ),
      }));
      // No hostname: applicationHostname depends on the SDK's host, so it stays undecided.
      const snapshot = compile({ version: 2, features: detailed.map((flag) => flag.definition), segments });
      return { environment, flags: detailed, snapshot };
    });
  }
}
