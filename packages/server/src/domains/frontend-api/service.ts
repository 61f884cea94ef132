import { randomBytes } from "node:crypto";
import { hostname as machineName } from "node:os";
import { type Context, compile, type Snapshot } from "@signalbox/engine";
import { invalidField } from "@signalbox/protocol";
import type { ClientFeaturesService } from "../client-api/service.js";
import type { EnvironmentContent } from "../client-api/store.js";
import type { Principal } from "../tokens/service.js";

// currentTime is not among them: the reference's frontend API files it under properties, so
// date constraints compare with the server's clock, not one a browser can set.
const TOP_LEVEL = new Set(["appName", "environment", "userId", "sessionId", "remoteAddress"]);

// What the reference's in-process SDK fills in for fields a request leaves out.
const DEFAULT_APP_NAME = "frontend-api";
const DEFAULT_ENVIRONMENT = "default";

/** A context value as text; a nested object or list is no value a constraint can compare. */
function scalar(field: string, value: unknown): string {
  if (typeof value === "object" || typeof value === "function") {
    throw invalidField(`context.${field}`, `context.${field} must be a string, number or boolean`);
  }
  return String(value);
}

/**
 * Builds the evaluation context as the reference does: known fields at the top,
 * everything else a property. The token chooses which flags are evaluated; the
 * `environment` field is the request's, as the reference's.
 */
export function contextFrom(fields: Record<string, unknown>, clientIp: string): Context {
  const properties: Record<string, string> = {};
  const context: Context = { properties };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === "") continue;
    if (key === "properties" && typeof value === "object" && !Array.isArray(value)) {
      for (const [name, inner] of Object.entries(value)) {
        if (inner != null) properties[name] = scalar(`properties.${name}`, inner);
      }
      continue;
    }
    const nested = /^properties\[(.+)\]$/.exec(key);
    if (nested) properties[nested[1]!] = scalar(key, value);
    else if (TOP_LEVEL.has(key)) context[key] = scalar(key, value);
    else properties[key] = scalar(key, value);
  }
  context.appName ??= DEFAULT_APP_NAME;
  context.environment ??= DEFAULT_ENVIRONMENT;
  // Set at the top so that a currentTime sent, now a property, is not read by date constraints.
  context.currentTime = new Date();
  context.remoteAddress ??= clientIp;
  // One random session for the whole response keeps its flags and variants consistent.
  context.sessionId ??= randomBytes(18).toString("hex");
  return context;
}

/** Evaluates flags for browser SDKs with the engine, over the same in-memory content SDKs poll. */
export class FrontendService {
  private readonly snapshots = new Map<string, { content: EnvironmentContent; snapshot: Snapshot }>();

  constructor(
    private readonly features: ClientFeaturesService,
    // The applicationHostname strategy compares with this, as the reference's in-process SDK does.
    private readonly hostname = process.env.HOSTNAME || machineName(),
  ) {}

  async evaluate(principal: Principal, context: Context) {
    const snapshot = await this.snapshotFor(principal);
    return snapshot
      .evaluateAll(context)
      .filter((result) => result.enabled)
      .map((result) => ({
        name: result.name,
        enabled: true,
        impressionData: result.impressionData,
        variant: { ...result.variant, featureEnabled: result.variant.feature_enabled },
      }));
  }

  private async snapshotFor(principal: Principal): Promise<Snapshot> {
    const content = await this.features.content(principal.environment);
    const key = `${principal.environment}|${principal.projects.join(",")}`;
    const cached = this.snapshots.get(key);
    if (cached?.content === content) return cached.snapshot;
    const all = principal.projects.includes("*");
    const features = content.features
      .filter((feature) => all || principal.projects.includes(feature.project))
      .map((feature) => feature.definition);
    const snapshot = compile(
      { version: 2, features, segments: [...content.segments.values()] },
      { hostname: this.hostname },
    );
    this.snapshots.set(key, { content, snapshot });
    return snapshot;
  }
}
