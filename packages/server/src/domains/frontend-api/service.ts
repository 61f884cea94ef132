import { hostname as machineName } from "node:os";
import { compile, type Evaluation, type Snapshot } from "@signalbox/engine";
import {
  type DeltaEvent,
  type EvaluationContext,
  type FrontendToggle,
  flagNotFound,
  needsTargetingKey,
  type OfrepEvaluation,
  ofrepEvaluation,
  targetingKeyMissing,
} from "@signalbox/protocol";
import type { TokenActor } from "../../access/actor.js";
import type { ClientFeaturesService, EnvironmentContent } from "../client-api/service.js";

// A snapshot answers each flag with one of a few frozen results made when it was compiled
// (off, on, on with each variant): each is serialised once, and an answer is a copy of ready
// bytes, in the order and with the fields of FrontendToggleSchema.
const serialized = new WeakMap<Evaluation, Buffer>();

function bytesOf(result: Evaluation): Buffer {
  let bytes = serialized.get(result);
  if (!bytes) {
    const { name, enabled, feature_enabled, payload } = result.variant;
    const toggle: FrontendToggle = {
      name: result.name,
      enabled: true,
      impressionData: result.impressionData,
      // The reference answers both spellings of whether the flag is on.
      variant: {
        name,
        enabled,
        feature_enabled,
        featureEnabled: feature_enabled,
        ...(payload ? { payload: { type: payload.type, value: payload.value } } : {}),
      },
    };
    bytes = Buffer.from(JSON.stringify(toggle));
    serialized.set(result, bytes);
  }
  return bytes;
}

const OPEN = Buffer.from('{"toggles":[');
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

/** Evaluates flags for browser SDKs with the engine, over the same in-memory content SDKs poll. */
export class FrontendService {
  private readonly snapshots = new Map<string, { content: EnvironmentContent; snapshot: Snapshot }>();

  constructor(
    private readonly features: ClientFeaturesService,
    // The applicationHostname strategy compares with this, as the reference's in-process SDK does.
    private readonly hostname = process.env.HOSTNAME || machineName(),
  ) {}

  /**
   * OpenFeature's answers (OFREP) for the context: one flag by key, or every flag the token
   * sees. `userId` in the context is the OFREP targeting key (ofrepFields).
   */
  ofrep(
    token: TokenActor,
    context: EvaluationContext,
    key?: string,
  ): Promise<OfrepEvaluation[]> | OfrepEvaluation[] {
    const content = this.features.content(token.environment);
    const answer = (ready: EnvironmentContent) => {
      const snapshot = this.snapshotFor(token, ready);
      const keys = key === undefined ? snapshot.features.map((feature) => feature.name) : [key];
      return keys.map((name) => {
        const definition = snapshot.definition(name);
        if (!definition) return flagNotFound(name);
        if (context.userId === undefined && needsTargetingKey(definition)) return targetingKeyMissing(name);
        return ofrepEvaluation(snapshot.decide(name, context), definition, context);
      });
    };
    return content instanceof Promise ? content.then(answer) : answer(content);
  }

  /** The flags on for the context, as the body `{"toggles": […]}`; at once when the environment is read. */
  evaluate(token: TokenActor, context: EvaluationContext): Buffer | Promise<Buffer> {
    const content = this.features.content(token.environment);
    if (content instanceof Promise) return content.then((ready) => this.answer(token, ready, context));
    return this.answer(token, content, context);
  }

  private answer(token: TokenActor, content: EnvironmentContent, context: EvaluationContext): Buffer {
    const parts: Buffer[] = [OPEN];
    let length = OPEN.length + CLOSE.length;
    for (const result of this.snapshotFor(token, content).evaluateAll(context)) {
      if (!result.enabled) continue;
      if (parts.length > 1) {
        parts.push(COMMA);
        length += COMMA.length;
      }
      const bytes = bytesOf(result);
      parts.push(bytes);
      length += bytes.length;
    }
    parts.push(CLOSE);
    return Buffer.concat(parts, length);
  }

  /**
   * The token's flags compiled for evaluation. After a change, from the snapshot before it
   * with only the flags that changed compiled again: at 10 000 flags a whole compile takes
   * a noticeable fraction of a second.
   */
  private snapshotFor(token: TokenActor, content: EnvironmentContent): Snapshot {
    const key = `${token.environment}|${token.projects.join(",")}`;
    const cached = this.snapshots.get(key);
    if (cached?.content === content) return cached.snapshot;
    const changes = cached && this.features.changesBetween(token.environment, cached.content, content);
    const snapshot = (changes && updated(cached.snapshot, changes, token)) ?? this.compiled(token, content);
    this.snapshots.set(key, { content, snapshot });
    return snapshot;
  }

  private compiled(token: TokenActor, content: EnvironmentContent): Snapshot {
    const features = content.features
      .filter((feature) => visibleTo(token, feature.project))
      .map((feature) => feature.definition);
    return compile(
      { version: 2, features, segments: [...content.segments.values()] },
      { hostname: this.hostname },
    );
  }
}

const visibleTo = (token: TokenActor, project: string | undefined) =>
  token.projects.includes("*") || token.projects.includes(project ?? "");

/**
 * The snapshot with the changes applied, as the token sees them: a flag moved out of its
 * projects is removed. Undefined when a flag new to the snapshot appears, which a delta
 * would add last: a whole compile keeps the flags in the listing's order.
 */
function updated(snapshot: Snapshot, changes: DeltaEvent[], token: TokenActor): Snapshot | undefined {
  const removed = new Set<string>();
  const events: DeltaEvent[] = [];
  for (const event of changes) {
    if (event.type === "feature-updated") {
      const { name, project } = event.feature;
      const present = snapshot.has(name) && !removed.has(name);
      if (visibleTo(token, project)) {
        if (!present) return undefined;
        events.push(event);
      } else if (present) {
        removed.add(name);
        events.push({ type: "feature-removed", eventId: event.eventId, featureName: name, project });
      }
    } else {
      if (event.type === "feature-removed") removed.add(event.featureName);
      events.push(event);
    }
  }
  return snapshot.applyDelta(events);
}
