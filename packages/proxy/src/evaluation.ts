import type { Context, Evaluation, Snapshot } from "@signalbox/engine";
import {
  flagNotFound,
  needsTargetingKey,
  type OfrepEvaluation,
  ofrepEvaluation,
  ofrepFields,
  targetingKeyMissing,
} from "@signalbox/protocol";
import type { ContextEnricher } from "./config.js";
import { type ContextSettings, createContext, enrichContext } from "./context.js";
import { bodyWithEtag } from "./etag.js";
import type { UsageMetrics } from "./metrics.js";
import type { ConfigSource } from "./source.js";
import { type SerializedResponse, type Spelling, serializeToggles } from "./toggles.js";

/** What a route asks for: the flags on for a context, every flag, or exactly some names. */
export interface ToggleQuery {
  /** Query parameters, or the `context` of a POST body. */
  input: Record<string, unknown> | undefined;
  clientAddress: () => string;
  /** Named flags are answered in full, on or off, and counted as usage. */
  toggles?: string[];
  /** Include the flags that are off (the /proxy/all routes). */
  all: boolean;
}

/**
 * The `{toggles}` answer for a context: the flags on, every flag (`all`), or exactly the named
 * ones, each of which is handed to `counted`.
 */
export function evaluateToggles(
  snapshot: Snapshot,
  context: Context,
  { toggles, all }: Pick<ToggleQuery, "toggles" | "all">,
  counted?: (result: Evaluation) => void,
  spelling?: Spelling,
): SerializedResponse {
  // One stand-in for an anonymous caller's `default` stickiness per response, so that its
  // flags and variants agree with each other.
  const options = { stickinessFallback: String(Math.floor(Math.random() * 1_000_000_000)) };
  if (toggles === undefined || toggles.length === 0) {
    return serializeToggles(snapshot.evaluateAll(context, options), !all, spelling);
  }
  const results = snapshot.evaluateMany(toggles, context, options);
  if (counted) for (const result of results) counted(result);
  return serializeToggles(results, false, spelling);
}

/** Answers evaluation requests from the current snapshot, serialised and fingerprinted. */
export class Evaluations {
  private readonly featureDocuments = new WeakMap<Snapshot, SerializedResponse>();

  constructor(
    private readonly source: ConfigSource,
    private readonly usage: UsageMetrics,
    private readonly settings: ContextSettings,
    private readonly enrichers: readonly ContextEnricher[],
  ) {}

  toggles(query: ToggleQuery): SerializedResponse | Promise<SerializedResponse> {
    const context = createContext(query.input, query.clientAddress, this.settings);
    // Without enrichers the whole answer stays synchronous.
    if (this.enrichers.length === 0) return this.evaluate(context, query);
    return enrichContext(context, this.enrichers).then((enriched) => this.evaluate(enriched, query));
  }

  /**
   * OpenFeature's answers (OFREP) for a context: one flag by key, or every flag. One
   * evaluation by key counts as usage, as a named flag on /proxy does.
   */
  ofrep(query: {
    input: Record<string, unknown> | undefined;
    clientAddress: () => string;
    key?: string;
  }): OfrepEvaluation[] | Promise<OfrepEvaluation[]> {
    const context = createContext(ofrepFields(query.input ?? {}), query.clientAddress, this.settings);
    const answer = (enriched: Context) => {
      const snapshot = this.snapshot();
      const options = { stickinessFallback: String(Math.floor(Math.random() * 1_000_000_000)) };
      const keys = query.key === undefined ? snapshot.features.map((feature) => feature.name) : [query.key];
      return keys.map((name) => {
        const definition = snapshot.definition(name);
        if (!definition) return flagNotFound(name);
        if (enriched.userId === undefined && needsTargetingKey(definition)) return targetingKeyMissing(name);
        const decided = snapshot.decide(name, enriched, options);
        if (query.key !== undefined) {
          const { variant } = decided;
          this.usage.count(name, decided.enabled, variant.enabled ? variant.name : undefined);
        }
        return ofrepEvaluation(decided, definition, enriched);
      });
    };
    if (this.enrichers.length === 0) return answer(context);
    return enrichContext(context, this.enrichers).then(answer);
  }

  /** The configuration as server-side SDKs read it; serialised once per snapshot. */
  clientFeatures(): SerializedResponse {
    const snapshot = this.snapshot();
    let document = this.featureDocuments.get(snapshot);
    if (!document) {
      document = bodyWithEtag(JSON.stringify(snapshot.toClientFeatures()));
      this.featureDocuments.set(snapshot, document);
    }
    return document;
  }

  private evaluate(context: Context, query: ToggleQuery): SerializedResponse {
    return evaluateToggles(this.snapshot(), context, query, (result) =>
      this.usage.count(result.name, result.enabled, result.variant.enabled ? result.variant.name : undefined),
    );
  }

  // Routes run only once the guard has seen a snapshot.
  private snapshot(): Snapshot {
    return this.source.snapshot!;
  }
}
