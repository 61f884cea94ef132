// The client-features document as the flag service sends it to SDKs
// (GET /api/client/features), plus the delta events of GET /api/client/delta.
// Everything is optional that real servers have been seen to omit.

export interface ConstraintDefinition {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}

export interface PayloadDefinition {
  type: string;
  value: string;
}

export interface OverrideDefinition {
  contextName: string;
  values: string[];
}

export interface VariantDefinition {
  name: string;
  weight: number;
  weightType?: string;
  stickiness?: string;
  payload?: PayloadDefinition;
  overrides?: OverrideDefinition[];
}

export interface StrategyDefinition {
  id?: string;
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  parameters?: Record<string, string | number | undefined>;
  constraints?: ConstraintDefinition[];
  segments?: number[];
  variants?: VariantDefinition[];
}

export interface DependencyDefinition {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

export interface FeatureDefinition {
  name: string;
  enabled: boolean;
  type?: string;
  description?: string | null;
  project?: string;
  stale?: boolean;
  impressionData?: boolean | null;
  strategies?: StrategyDefinition[];
  variants?: VariantDefinition[] | null;
  dependencies?: DependencyDefinition[];
}

export interface SegmentDefinition {
  id: number;
  name?: string;
  constraints: ConstraintDefinition[];
}

export interface ClientFeatures {
  version?: number;
  features: FeatureDefinition[];
  segments?: SegmentDefinition[];
  query?: Record<string, unknown>;
}

export type DeltaEvent =
  | { type: "hydration"; eventId: number; features: FeatureDefinition[]; segments: SegmentDefinition[] }
  | { type: "feature-updated"; eventId: number; feature: FeatureDefinition }
  | { type: "feature-removed"; eventId: number; featureName: string; project?: string }
  | { type: "segment-updated"; eventId: number; segment: SegmentDefinition }
  | { type: "segment-removed"; eventId: number; segmentId: number };

export interface DeltaDocument {
  events: DeltaEvent[];
}
