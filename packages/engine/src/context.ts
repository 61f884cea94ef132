import type {
  EvaluationContext,
  FrontendToggle,
  FrontendVariant,
  PayloadDefinition,
  Decision as ProtocolDecision,
} from "@signalbox/protocol";

/** The evaluation context an application supplies (the protocol's). */
export type Context = EvaluationContext;

export type PayloadResult = PayloadDefinition;

/** A variant as frontend APIs serve it; `feature_enabled` says whether the flag itself is on. */
export type VariantResult = FrontendVariant;

/** One flag's answer, in the shape frontend APIs serve. */
export type Evaluation = FrontendToggle;

/** One flag's answer and what decided it (`Snapshot.decide`), in the protocol's terms. */
export type Decision = ProtocolDecision;

/** How one evaluation call treats what its context lacks. */
export interface EvaluationOptions {
  /**
   * What `default` stickiness hashes when the context has neither userId nor sessionId.
   * Without it every flag draws a random number of its own, as the SDKs do; a host that
   * answers many flags for one anonymous caller passes one value so that they agree,
   * without inventing a sessionId that sessionId rules would then see.
   */
  stickinessFallback?: string;
}

/** A strategy supplied by the host, looked up by name. */
export interface CustomStrategy {
  name: string;
  isEnabled(parameters: Record<string, string>, context: Context): boolean;
}
