import type { Context, Evaluation, FeatureDefinition, Snapshot } from "@signalbox/engine";
import {
  flagNotFound,
  needsTargetingKey,
  type OfrepEvaluation,
  type OfrepReason,
  ofrepAnswer,
  ofrepEvaluation,
  ofrepFields,
  ofrepReason,
  targetingKeyMissing,
} from "@signalbox/protocol";
import type { ContextEnricher } from "./config.js";
import { type ContextSettings, createContext, enrichContext } from "./context.js";
import { bodyWithEtag, type Piece, pieceOf } from "./etag.js";
import type { UsageMetrics } from "./metrics.js";
import type { ConfigSource } from "./source.js";
import { joinPieces, type SerializedResponse, type Spelling, serializeToggles } from "./toggles.js";

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
  const options = fallbackOptions();
  if (toggles === undefined || toggles.length === 0) {
    return serializeToggles(snapshot.evaluateAll(context, options), !all, spelling);
  }
  const results = snapshot.evaluateMany(toggles, context, options);
  if (counted) for (const result of results) counted(result);
  return serializeToggles(results, false, spelling);
}

/** What an OFREP route asks for: the body's `context` and the caller's address. */
export interface OfrepQuery {
  input: Record<string, unknown> | undefined;
  clientAddress: () => string;
}

// One stand-in for an anonymous caller's `default` stickiness per response, so that its
// flags and variants agree with each other.
const fallbackOptions = () => ({ stickinessFallback: String(Math.floor(Math.random() * 1_000_000_000)) });

const OFREP_OPEN = pieceOf('{"flags":[');
const OFREP_CLOSE = pieceOf("]}");
// A result object stands for one outcome of one compiled flag (and its definition): with the
// reason, it fixes the OFREP answer.
const ofrepPieces = new WeakMap<Evaluation, Map<string, Piece>>();

function ofrepPiece(result: Evaluation, definition: FeatureDefinition, reason: OfrepReason): Piece {
  let byReason = ofrepPieces.get(result);
  if (!byReason) {
    byReason = new Map();
    ofrepPieces.set(result, byReason);
  }
  let piece = byReason.get(reason);
  if (!piece) {
    piece = pieceOf(JSON.stringify(ofrepAnswer(result, definition, reason)));
    byReason.set(reason, piece);
  }
  return piece;
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

  /** OpenFeature's answer (OFREP) for one flag; counted as usage, as a named flag on /proxy is. */
  ofrep(query: OfrepQuery & { key: string }): OfrepEvaluation | Promise<OfrepEvaluation> {
    return this.withOfrepContext(query, (context) => {
      const snapshot = this.snapshot();
      const definition = snapshot.definition(query.key);
      if (!definition) return flagNotFound(query.key);
      if (context.userId === undefined && needsTargetingKey(definition))
        return targetingKeyMissing(query.key);
      const decision = snapshot.decide(query.key, context, fallbackOptions());
      const { result } = decision;
      this.usage.count(result.name, result.enabled, result.variant.enabled ? result.variant.name : undefined);
      return ofrepEvaluation(decision, definition, context);
    });
  }

  /**
   * OpenFeature's bulk answer (OFREP) for every flag, `{"flags": […]}`, with its ETag. Each
   * flag's part is serialised once per result and reason and then only looked up, as the
   * `/proxy` answers are; `close` ends the list and the object (with more fields, if any).
   */
  ofrepAll(query: OfrepQuery, close: Piece = OFREP_CLOSE): SerializedResponse | Promise<SerializedResponse> {
    return this.withOfrepContext(query, (context) => {
      const snapshot = this.snapshot();
      const options = fallbackOptions();
      const pieces: Piece[] = [];
      for (const definition of snapshot.features) {
        if (context.userId === undefined && needsTargetingKey(definition)) {
          pieces.push(pieceOf(JSON.stringify(targetingKeyMissing(definition.name))));
          continue;
        }
        const decision = snapshot.decide(definition.name, context, options);
        pieces.push(ofrepPiece(decision.result, definition, ofrepReason(decision, definition, context)));
      }
      return joinPieces(OFREP_OPEN, pieces, close);
    });
  }

  private withOfrepContext<T>(query: OfrepQuery, answer: (context: Context) => T): T | Promise<T> {
    const context = createContext(ofrepFields(query.input ?? {}), query.clientAddress, this.settings);
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
