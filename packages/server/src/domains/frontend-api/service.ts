import { randomBytes } from "node:crypto";
import { hostname as machineName } from "node:os";
import { compile, type Snapshot } from "@signalbox/engine";
import {
  type EvaluationContext,
  type FrontendContextRules,
  type FrontendToggle,
  frontendContext,
} from "@signalbox/protocol";
import type { TokenActor } from "../../access/actor.js";
import type { ClientFeaturesService, EnvironmentContent } from "../client-api/service.js";

/**
 * The reference service's rules (see the protocol's README): its in-process SDK's defaults
 * for what a request leaves out, and the server's clock for dates, so that a browser cannot
 * move date constraints (a `currentTime` sent is an ordinary property).
 */
const RULES: FrontendContextRules = {
  appName: "frontend-api",
  clock: () => new Date(),
  plainIpv4: false,
  refuseNonScalars: true,
};

/**
 * The evaluation context of a frontend request, from its query parameters or its body's
 * `context`. The token chooses which flags are evaluated; the `environment` field is the
 * request's, as the reference's.
 */
export function contextFrom(fields: Record<string, unknown>, clientIp: string): EvaluationContext {
  const context = frontendContext(fields, () => clientIp, RULES);
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

  async evaluate(token: TokenActor, context: EvaluationContext): Promise<FrontendToggle[]> {
    const snapshot = await this.snapshotFor(token);
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

  private async snapshotFor(token: TokenActor): Promise<Snapshot> {
    const content = await this.features.content(token.environment);
    const key = `${token.environment}|${token.projects.join(",")}`;
    const cached = this.snapshots.get(key);
    if (cached?.content === content) return cached.snapshot;
    const all = token.projects.includes("*");
    const features = content.features
      .filter((feature) => all || token.projects.includes(feature.project))
      .map((feature) => feature.definition);
    const snapshot = compile(
      { version: 2, features, segments: [...content.segments.values()] },
      { hostname: this.hostname },
    );
    this.snapshots.set(key, { content, snapshot });
    return snapshot;
  }
}
