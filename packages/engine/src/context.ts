// The evaluation context an application supplies. Well-known fields sit at the top
// level; anything else lives in `properties` (a top-level unknown field is also read,
// as the SDKs do).
export interface Context {
  appName?: string;
  environment?: string;
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  currentTime?: string | Date;
  properties?: Record<string, string | number | boolean | null | undefined>;
  [field: string]: unknown;
}

export interface PayloadResult {
  type: string;
  value: string;
}

export interface VariantResult {
  name: string;
  enabled: boolean;
  /** Whether the flag itself is on; current SDKs report it beside the variant. */
  feature_enabled: boolean;
  payload?: PayloadResult;
}

export interface Evaluation {
  name: string;
  enabled: boolean;
  impressionData: boolean;
  variant: VariantResult;
}

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
