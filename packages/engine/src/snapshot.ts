import type { CompiledSegment, CompiledStrategy } from "./compiled.js";
import { allHold, allOf, compileConstraint } from "./constraints.js";
import type {
  Context,
  CustomStrategy,
  Decision,
  Evaluation,
  EvaluationOptions,
  VariantResult,
} from "./context.js";
import type {
  ClientFeatures,
  DeltaDocument,
  DeltaEvent,
  FeatureDefinition,
  SegmentDefinition,
  StrategyDefinition,
} from "./definitions.js";
import { type Explanation, explainStrategy } from "./explain.js";
import { perEvaluation, startEvaluation } from "./per-evaluation.js";
import { compileStrategy, type StrategyEnvironment } from "./strategies.js";
import { compileVariants, FLAG_OFF, NO_VARIANT, type VariantPicker } from "./variants.js";

export interface CompileOptions {
  /** Strategies the host implements, by name; unknown strategy names evaluate to false. */
  strategies?: readonly CustomStrategy[];
  /** This machine's host name, for the applicationHostname strategy (the engine does no I/O). */
  hostname?: string;
}

interface CompiledDependency {
  feature: string;
  enabled: boolean;
  variants: ReadonlySet<string> | undefined;
}

interface CompiledFeature {
  name: string;
  enabled: boolean;
  hasDependencies: boolean;
  segmentIds: ReadonlySet<number>;
  /** The strategies evaluation tries, in order: disabled ones left out. */
  strategies: CompiledStrategy[];
  /** Every strategy the document lists, disabled ones too, for `explain`. */
  listed: CompiledStrategy[];
  variants: VariantPicker | undefined;
  dependencies: CompiledDependency[];
  off: Evaluation;
  onWithoutVariant: Evaluation;
}

interface Settings {
  custom: ReadonlyMap<string, CustomStrategy>;
  hostname: string | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function validFeatures(features: unknown): FeatureDefinition[] {
  if (!Array.isArray(features)) return [];
  return features.filter(
    (feature): feature is FeatureDefinition => isObject(feature) && typeof feature.name === "string",
  );
}

function validSegments(segments: unknown): SegmentDefinition[] {
  if (!Array.isArray(segments)) return [];
  return segments.filter(
    (segment): segment is SegmentDefinition => isObject(segment) && typeof segment.id === "number",
  );
}

function segmentIdsOf(feature: FeatureDefinition): Set<number> {
  const ids = new Set<number>();
  for (const strategy of Array.isArray(feature.strategies) ? feature.strategies : []) {
    for (const id of Array.isArray(strategy?.segments) ? strategy.segments : []) ids.add(id);
  }
  return ids;
}

/** Each segment compiled once, when a strategy first names it. */
function segmentCompiler(segments: ReadonlyMap<number, SegmentDefinition>): SegmentCompiler {
  const compiled = new Map<number, CompiledSegment>();
  return (id) => {
    let named = compiled.get(id);
    if (!named) {
      const segment = segments.get(id);
      const checks = (Array.isArray(segment?.constraints) ? segment.constraints : []).map(compileConstraint);
      const holds = allOf(checks);
      // Many flags name the same segment: its answer is worked out once per evaluation call.
      named = { id, segment, checks, holds: holds && perEvaluation(holds) };
      compiled.set(id, named);
    }
    return named;
  };
}

type SegmentCompiler = (id: number) => CompiledSegment;

function compileFeature(
  feature: FeatureDefinition,
  segments: SegmentCompiler,
  settings: Settings,
): CompiledFeature {
  const name = feature.name;
  const impressionData = feature.impressionData === true;
  const result = (enabled: boolean, variant: VariantResult): Evaluation =>
    Object.freeze({ name, enabled, impressionData, variant });
  const env: StrategyEnvironment = {
    featureName: name,
    hostname: settings.hostname,
    custom: settings.custom,
  };

  const listed: CompiledStrategy[] = [];
  const definitions = Array.isArray(feature.strategies) ? feature.strategies : [];
  for (const strategy of definitions) {
    if (!isObject(strategy) || typeof strategy.name !== "string") continue;
    listed.push(compileStrategyWithRules(strategy, segments, env, result));
  }
  const strategies = listed.filter((strategy) => strategy.definition.disabled !== true);
  const dependencies: CompiledDependency[] = [];
  for (const dependency of Array.isArray(feature.dependencies) ? feature.dependencies : []) {
    if (!isObject(dependency) || typeof dependency.feature !== "string") continue;
    const variants = Array.isArray(dependency.variants) && dependency.variants.length > 0;
    dependencies.push({
      feature: dependency.feature,
      enabled: dependency.enabled !== false,
      variants: variants ? new Set(dependency.variants) : undefined,
    });
  }
  return {
    name,
    // No strategies means on for everyone; strategies that are all disabled mean nobody.
    enabled: feature.enabled === true && (definitions.length === 0 || strategies.length > 0),
    hasDependencies: dependencies.length > 0,
    segmentIds: segmentIdsOf(feature),
    strategies,
    listed,
    variants: compileVariants(
      feature.variants,
      name,
      Array.isArray(feature.variants) ? feature.variants[0]?.stickiness : undefined,
      (variant) => result(true, variant),
    ),
    dependencies,
    off: result(false, FLAG_OFF),
    onWithoutVariant: result(true, NO_VARIANT),
  };
}

function compileStrategyWithRules(
  strategy: StrategyDefinition,
  segments: SegmentCompiler,
  env: StrategyEnvironment,
  result: (enabled: boolean, variant: VariantResult) => Evaluation,
): CompiledStrategy {
  const checks = (Array.isArray(strategy.constraints) ? strategy.constraints : []).map(compileConstraint);
  const named = (Array.isArray(strategy.segments) ? strategy.segments : []).map(segments);
  const parameters = strategy.parameters ?? {};
  // The Node SDK hashes strategy variants with the parameter as it is, so a strategy
  // without one groups by the text "undefined", not by the flag name.
  const groupId = String(parameters.groupId);
  // The first variant's stickiness, else the strategy's, as the Node SDK reads them.
  const strategyStickiness = parameters.stickiness === undefined ? undefined : String(parameters.stickiness);
  const stickiness =
    (Array.isArray(strategy.variants) ? strategy.variants[0]?.stickiness : undefined) || strategyStickiness;
  return {
    definition: strategy,
    checks,
    segments: named,
    // A strategy that names a segment the document lacks can never be satisfied.
    constraints: named.some(({ segment }) => !segment)
      ? () => false
      : allHold([allOf(checks), ...named.map((segment) => segment.holds)]),
    test: compileStrategy(strategy, env),
    variants: compileVariants(strategy.variants, groupId, stickiness, (variant) => result(true, variant)),
  };
}

/**
 * A compiled, immutable flag configuration. Evaluation only reads it, so a host can
 * swap in a new snapshot atomically while requests are being served.
 */
export class Snapshot {
  private constructor(
    private readonly featureMap: ReadonlyMap<string, FeatureDefinition>,
    private readonly segmentMap: ReadonlyMap<number, SegmentDefinition>,
    private readonly compiled: ReadonlyMap<string, CompiledFeature>,
    private readonly settings: Settings,
  ) {
    this.ordered = [...compiled.values()];
  }

  private readonly ordered: CompiledFeature[];

  static compile(document: ClientFeatures | DeltaDocument, options: CompileOptions = {}): Snapshot {
    const settings: Settings = {
      custom: new Map((options.strategies ?? []).map((strategy) => [strategy.name, strategy])),
      hostname: options.hostname,
    };
    const empty = new Snapshot(new Map(), new Map(), new Map(), settings);
    // Documents come off the network: their shape is checked here, not trusted.
    const raw: unknown = document;
    if (!isObject(raw)) return empty;
    if (Array.isArray(raw.events)) return empty.applyDelta(raw.events as DeltaEvent[]);
    return empty.rebuild(validFeatures(raw.features), validSegments(raw.segments));
  }

  /** Flag definitions in the order the service sent them. */
  get features(): FeatureDefinition[] {
    return [...this.featureMap.values()];
  }

  /** One flag's definition as the service sent it. */
  definition(name: string): FeatureDefinition | undefined {
    return this.featureMap.get(name);
  }

  get segments(): SegmentDefinition[] {
    return [...this.segmentMap.values()];
  }

  get size(): number {
    return this.ordered.length;
  }

  has(name: string): boolean {
    return this.compiled.has(name);
  }

  /** The document as a version-2 SDK listing (segments kept apart). */
  toClientFeatures(): ClientFeatures {
    return { version: 2, features: this.features, segments: this.segments };
  }

  /** One flag; an unknown name is off with the fallback variant. */
  evaluate(name: string, context: Context, options?: EvaluationOptions): Evaluation {
    startEvaluation();
    return this.answer(name, context, options?.stickinessFallback);
  }

  evaluateMany(names: readonly string[], context: Context, options?: EvaluationOptions): Evaluation[] {
    startEvaluation();
    const fallback = options?.stickinessFallback;
    return names.map((name) => this.answer(name, context, fallback));
  }

  /** Every flag, on or off, in definition order. */
  evaluateAll(context: Context, options?: EvaluationOptions): Evaluation[] {
    startEvaluation();
    const fallback = options?.stickinessFallback;
    const results = new Array<Evaluation>(this.ordered.length);
    for (let i = 0; i < this.ordered.length; i++) results[i] = this.run(this.ordered[i]!, context, fallback);
    return results;
  }

  /**
   * One flag's evaluation with the reasons for it: every strategy with its constraints,
   * segments and result, whether a dependency kept it off, and where its variant came from.
   * Its `name`, `enabled`, `impressionData` and `variant` are what `evaluate` answers; it
   * runs the same compiled tests, and only when asked, so evaluation pays nothing for it.
   */
  explain(name: string, context: Context, options?: EvaluationOptions): Explanation {
    startEvaluation();
    const feature = this.compiled.get(name);
    if (!feature) {
      return {
        ...this.answer(name, context, undefined),
        flagEnabled: false,
        hasUnsatisfiedDependency: false,
        strategies: [],
      };
    }
    return this.explainFeature(feature, context, options?.stickinessFallback);
  }

  /**
   * One flag's answer and what decided it: the strategy that let the context in and where
   * the variant came from. As cheap as `evaluate`, where `explain` reports every rule.
   */
  decide(name: string, context: Context, options?: EvaluationOptions): Decision {
    startEvaluation();
    const feature = this.compiled.get(name);
    const fallback = options?.stickinessFallback;
    const decision = (result: Evaluation, extra?: Partial<Decision>): Decision => ({
      result,
      flagEnabled: feature?.enabled === true,
      hasUnsatisfiedDependency: false,
      ...extra,
    });
    if (!feature) return decision(this.answer(name, context, fallback));
    if (feature.hasDependencies && !this.dependenciesMet(feature, context, fallback)) {
      return decision(feature.off, { hasUnsatisfiedDependency: true });
    }
    if (!feature.enabled) return decision(feature.off);
    const winner = winnerOf(feature, context, fallback);
    if (winner === null) return decision(feature.off);
    const deciding = winner?.definition;
    const picked = winner?.variants?.pick(context, fallback);
    if (picked) return decision(picked, { deciding, variantSource: "strategy" });
    const answer = flagAnswer(feature, context, fallback);
    return decision(
      answer,
      answer === feature.onWithoutVariant ? { deciding } : { deciding, variantSource: "flag" },
    );
  }

  /** Every flag explained, in definition order. */
  explainAll(context: Context, options?: EvaluationOptions): Explanation[] {
    startEvaluation();
    const fallback = options?.stickinessFallback;
    return this.ordered.map((feature) => this.explainFeature(feature, context, fallback));
  }

  /** A new snapshot with the delta events applied; this one is left as it was. */
  applyDelta(events: readonly DeltaEvent[]): Snapshot {
    let features = new Map(this.featureMap);
    let segments = new Map(this.segmentMap);
    const changedFeatures = new Set<string>();
    const changedSegments = new Set<number>();
    let hydrated = false;
    for (const event of Array.isArray(events) ? events : []) {
      // Documents come off the network: a malformed event is skipped, never thrown on.
      if (typeof event !== "object" || event === null) continue;
      switch (event.type) {
        case "hydration":
          hydrated = true;
          features = new Map(validFeatures(event.features).map((feature) => [feature.name, feature]));
          segments = new Map(validSegments(event.segments).map((segment) => [segment.id, segment]));
          break;
        case "feature-updated":
          for (const feature of validFeatures([event.feature])) {
            features.set(feature.name, feature);
            changedFeatures.add(feature.name);
          }
          break;
        case "feature-removed":
          features.delete(event.featureName);
          break;
        case "segment-updated":
          for (const segment of validSegments([event.segment])) {
            segments.set(segment.id, segment);
            changedSegments.add(segment.id);
          }
          break;
        case "segment-removed":
          segments.delete(event.segmentId);
          changedSegments.add(event.segmentId);
          break;
      }
    }
    if (hydrated) return this.rebuild([...features.values()], [...segments.values()]);
    // Only what changed is compiled again: updated flags and those using a changed segment.
    const compiled = new Map<string, CompiledFeature>();
    const compileSegment = segmentCompiler(segments);
    for (const [name, feature] of features) {
      const previous = this.compiled.get(name);
      const stale =
        !previous ||
        changedFeatures.has(name) ||
        [...changedSegments].some((id) => previous.segmentIds.has(id));
      compiled.set(name, stale ? compileFeature(feature, compileSegment, this.settings) : previous);
    }
    return new Snapshot(features, segments, compiled, this.settings);
  }

  /**
   * What changed since `previous`, as delta events tagged `eventId`: the events that,
   * applied to `previous`, give this snapshot. A relay that polls full documents serves
   * its own SDKs changes this way.
   */
  changesSince(previous: Snapshot, eventId: number): DeltaEvent[] {
    const events: DeltaEvent[] = [];
    const differs = (before: unknown, after: unknown) =>
      before !== after && JSON.stringify(before) !== JSON.stringify(after);
    // Segments first, so that a flag updated with a new segment never arrives before it.
    for (const [id, segment] of this.segmentMap) {
      if (differs(previous.segmentMap.get(id), segment))
        events.push({ type: "segment-updated", eventId, segment });
    }
    for (const [name, feature] of this.featureMap) {
      if (differs(previous.featureMap.get(name), feature))
        events.push({ type: "feature-updated", eventId, feature });
    }
    for (const [name, feature] of previous.featureMap) {
      if (!this.featureMap.has(name))
        events.push({ type: "feature-removed", eventId, featureName: name, project: feature.project });
    }
    for (const id of previous.segmentMap.keys()) {
      if (!this.segmentMap.has(id)) events.push({ type: "segment-removed", eventId, segmentId: id });
    }
    return events;
  }

  private rebuild(features: FeatureDefinition[], segments: SegmentDefinition[]): Snapshot {
    const segmentMap = new Map(segments.map((segment) => [segment.id, segment]));
    const featureMap = new Map(features.map((feature) => [feature.name, feature]));
    const compiled = new Map<string, CompiledFeature>();
    const compileSegment = segmentCompiler(segmentMap);
    for (const feature of featureMap.values()) {
      compiled.set(feature.name, compileFeature(feature, compileSegment, this.settings));
    }
    return new Snapshot(featureMap, segmentMap, compiled, this.settings);
  }

  // The steps of `run` and `evaluateOwn`, in their order, except that every strategy is
  // explained (not only those up to the first that lets the context in), with the variant
  // its own variants give, and that a flag that is off or has an unmet dependency still
  // has its strategies explained.
  private explainFeature(
    feature: CompiledFeature,
    context: Context,
    fallback: string | undefined,
  ): Explanation {
    const hasUnsatisfiedDependency =
      feature.hasDependencies && !this.dependenciesMet(feature, context, fallback);
    const picks: (Evaluation | undefined)[] = [];
    const strategies = feature.listed.map((strategy) => {
      const explanation = explainStrategy(strategy, context, fallback);
      const picked = explanation.disabled ? undefined : strategy.variants?.pick(context, fallback);
      if (picked) explanation.variant = picked.variant;
      picks.push(picked);
      return explanation;
    });
    const winnerAt = strategies.findIndex((strategy) => strategy.result);
    const explanation = (evaluation: Evaluation, variantSource?: "strategy" | "flag"): Explanation => ({
      ...evaluation,
      flagEnabled: this.featureMap.get(feature.name)?.enabled === true,
      hasUnsatisfiedDependency,
      strategies,
      ...(variantSource ? { variantSource } : {}),
    });
    if (hasUnsatisfiedDependency || !feature.enabled || (feature.strategies.length > 0 && winnerAt < 0)) {
      return explanation(feature.off);
    }
    const fromStrategy = picks[winnerAt];
    if (fromStrategy) return explanation(fromStrategy, "strategy");
    const answer = flagAnswer(feature, context, fallback);
    return explanation(answer, answer === feature.onWithoutVariant ? undefined : "flag");
  }

  private answer(name: string, context: Context, fallback: string | undefined): Evaluation {
    const feature = this.compiled.get(name);
    if (!feature) return { name, enabled: false, impressionData: false, variant: FLAG_OFF };
    return this.run(feature, context, fallback);
  }

  private run(feature: CompiledFeature, context: Context, fallback: string | undefined): Evaluation {
    if (feature.hasDependencies && !this.dependenciesMet(feature, context, fallback)) return feature.off;
    return this.evaluateOwn(feature, context, fallback);
  }

  private evaluateOwn(feature: CompiledFeature, context: Context, fallback: string | undefined): Evaluation {
    if (!feature.enabled) return feature.off;
    const winner = winnerOf(feature, context, fallback);
    if (winner === null) return feature.off;
    // The variants of the strategy that switched the flag on win over the flag's own.
    return winner?.variants?.pick(context, fallback) ?? flagAnswer(feature, context, fallback);
  }

  // Dependencies are one level deep: a parent that has parents of its own never
  // satisfies a child, which also rules out cycles.
  private dependenciesMet(feature: CompiledFeature, context: Context, fallback: string | undefined): boolean {
    for (const dependency of feature.dependencies) {
      const parent = this.compiled.get(dependency.feature);
      if (!parent || parent.hasDependencies) return false;
      const result = this.evaluateOwn(parent, context, fallback);
      if (!dependency.enabled) {
        if (result.enabled) return false;
        continue;
      }
      if (!result.enabled) return false;
      if (dependency.variants && !dependency.variants.has(result.variant.name)) return false;
    }
    return true;
  }
}

/** A flag that is on, when no strategy variant decided: one of its own variants, or none. */
function flagAnswer(feature: CompiledFeature, context: Context, fallback: string | undefined): Evaluation {
  return feature.variants?.pick(context, fallback) ?? feature.onWithoutVariant;
}

/**
 * The first strategy that lets the context in; undefined for a flag without strategies (on
 * for everyone), null when it has some and none does.
 */
function winnerOf(
  feature: CompiledFeature,
  context: Context,
  fallback: string | undefined,
): CompiledStrategy | undefined | null {
  const strategies = feature.strategies;
  if (strategies.length === 0) return undefined;
  for (const strategy of strategies) {
    if (strategy.constraints !== undefined && !strategy.constraints(context)) continue;
    if (!strategy.test(context, fallback)) continue;
    return strategy;
  }
  return null;
}

export function compile(document: ClientFeatures | DeltaDocument, options?: CompileOptions): Snapshot {
  return Snapshot.compile(document, options);
}
