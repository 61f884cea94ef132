import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { DeltaEvent, FeatureDefinition, SegmentDefinition } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { Telemetry } from "../../telemetry.js";
import type { EventService } from "../events/service.js";
import { inScope, listingKey, type Scope } from "./scope.js";
import { type EnvironmentContent, readEnvironment, type SdkFeature } from "./store.js";

export type { EnvironmentContent };

export interface Document {
  /** Encoded once: a large listing is not turned into bytes again for every SDK. */
  body: Buffer;
  etag: string;
  /** The body gzipped, compressed on the first request that accepts it and then kept. */
  gzipped(): Buffer | Promise<Buffer>;
}

/** What brings an SDK from one revision to another: a hydration, changes, or nothing. */
export interface Delta {
  revision: number;
  events: DeltaEvent[];
}

interface Change {
  eventId: number;
  events: DeltaEvent[];
}

interface EnvironmentState {
  revision: number;
  content: EnvironmentContent;
  documents: Map<string, Document>;
  /** Changes seen since this environment was first read, oldest first. */
  history: Change[];
  firstRevision: number;
}

const HISTORY_LIMIT = 1000;
/**
 * Distinct queries (token scope, filters, segment form) kept encoded per environment. SDKs
 * of one deployment ask a handful; the bound keeps arbitrary `namePrefix` values from
 * growing memory without end. The oldest query is dropped first.
 */
const DOCUMENT_LIMIT = 500;

const gzipAsync = promisify(gzip);

function documentOf(body: Buffer): Document {
  let compressing: Promise<Buffer> | undefined;
  let gzipped: Buffer | undefined;
  return {
    body,
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    // Compressed off the event loop, once; then the bytes themselves, with no promise to await.
    gzipped: () => {
      if (gzipped) return gzipped;
      compressing ??= gzipAsync(body).then((bytes) => {
        gzipped = bytes;
        return bytes;
      });
      return compressing;
    },
  };
}

function inlineSegments(feature: FeatureDefinition, segments: ReadonlyMap<number, SegmentDefinition>) {
  return {
    ...feature,
    strategies: feature.strategies?.map(({ segments: ids, ...strategy }) => ({
      ...strategy,
      constraints: [
        ...(strategy.constraints ?? []),
        ...(ids ?? []).flatMap((id) => segments.get(id)?.constraints ?? []),
      ],
    })),
  };
}

// Each flag's JSON, made once and kept with the flag, which a read keeps as long as its rows
// are unchanged: after a change, a listing is the flags' ready JSON joined.
const serialized = new WeakMap<SdkFeature, string>();

function jsonOf(feature: SdkFeature): string {
  let json = serialized.get(feature);
  if (json === undefined) {
    json = JSON.stringify(feature.definition);
    serialized.set(feature, json);
  }
  return json;
}

// The same with segment constraints copied in, for the segments it was made with.
const inlined = new WeakMap<SdkFeature, { segments: ReadonlyMap<number, SegmentDefinition>; json: string }>();

function inlinedJsonOf(feature: SdkFeature, segments: ReadonlyMap<number, SegmentDefinition>): string {
  let made = inlined.get(feature);
  if (made?.segments !== segments) {
    made = { segments, json: JSON.stringify(inlineSegments(feature.definition, segments)) };
    inlined.set(feature, made);
  }
  return made.json;
}

function diff(before: EnvironmentContent, after: EnvironmentContent, eventId: number): DeltaEvent[] {
  const events: DeltaEvent[] = [];
  const old = new Map(before.features.map((feature) => [feature.definition.name, feature]));
  for (const feature of after.features) {
    const previous = old.get(feature.definition.name);
    old.delete(feature.definition.name);
    // A flag whose rows are unchanged is the very same object; one whose rows changed may
    // still look the same to SDKs (a new tag), which is no change to them.
    if (previous !== feature && (!previous || jsonOf(previous) !== jsonOf(feature))) {
      events.push({ type: "feature-updated", eventId, feature: feature.definition });
    }
  }
  for (const gone of old.values()) {
    events.push({
      type: "feature-removed",
      eventId,
      featureName: gone.definition.name,
      project: gone.project,
    });
  }
  if (after.segments === before.segments) return events;
  for (const [id, segment] of after.segments) {
    const previous = before.segments.get(id);
    if (!previous || JSON.stringify(previous) !== JSON.stringify(segment)) {
      events.push({ type: "segment-updated", eventId, segment });
    }
  }
  for (const id of before.segments.keys()) {
    if (!after.segments.has(id)) events.push({ type: "segment-removed", eventId, segmentId: id });
  }
  return events;
}

/** Whether a read found every flag and segment as the last one did (a flag kept is the same object). */
const sameContent = (before: EnvironmentContent, after: EnvironmentContent) =>
  after.segments === before.segments &&
  after.features.length === before.features.length &&
  after.features.every((feature, index) => feature === before.features[index]);

/** The changes after revision `since`, oldest first; undefined when some of them are forgotten. */
function changesAfter(state: EnvironmentState, since: number): DeltaEvent[] | undefined {
  if (since < state.firstRevision) return undefined;
  return state.history.filter((change) => change.eventId > since).flatMap((change) => change.events);
}

/**
 * What SDKs poll, served from memory. Each environment is read from the database once
 * per committed change (the event log's revision), and each distinct query's document
 * is serialised once per change: an SDK request costs a map lookup.
 */
export class ClientFeaturesService {
  private readonly environments = new Map<string, EnvironmentState>();
  private readonly loading = new Map<string, { revision: number; state: Promise<EnvironmentState> }>();
  /** The revision each content was read at, for changesBetween. */
  private readonly revisions = new WeakMap<EnvironmentContent, number>();

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly telemetry?: Telemetry,
  ) {}

  /** The environment's content as of the latest revision this instance knows; at once when it is read. */
  content(environment: string): EnvironmentContent | Promise<EnvironmentContent> {
    const state = this.state(environment);
    return state instanceof Promise ? state.then((ready) => ready.content) : state.content;
  }

  /**
   * The listing for a query, answered at once when the environment is read and the query
   * was asked before: the path of nearly every SDK poll, which then waits on no promise.
   */
  document(scope: Scope, inline: boolean): Document | Promise<Document> {
    const state = this.state(scope.environment);
    if (state instanceof Promise) return state.then((ready) => this.documentIn(ready, scope, inline));
    return this.documentIn(state, scope, inline);
  }

  private documentIn(state: EnvironmentState, scope: Scope, inline: boolean): Document {
    const key = listingKey(scope, inline);
    let document = state.documents.get(key);
    if (!document) {
      document = documentOf(Buffer.from(this.listing(state.content, scope, inline)));
      this.telemetry?.documentBytes.set({ environment: scope.environment }, document.body.length);
      if (state.documents.size >= DOCUMENT_LIMIT) {
        state.documents.delete(state.documents.keys().next().value!);
      }
      state.documents.set(key, document);
    }
    return document;
  }

  async feature(scope: Scope, name: string, inline: boolean): Promise<FeatureDefinition | undefined> {
    const { content } = await this.state(scope.environment);
    const found = this.select(content, scope).find((feature) => feature.definition.name === name);
    if (!found) return undefined;
    return inline ? inlineSegments(found.definition, content.segments) : found.definition;
  }

  /**
   * The delta protocol: the changes after `since` that the scope sees (none when nothing
   * is new to it), or a hydration when `since` is unknown or older than what this instance
   * remembers. `revision` is what the answer brings the caller up to.
   */
  async delta(scope: Scope, since: number | undefined): Promise<Delta> {
    const state = await this.state(scope.environment);
    if (since === state.revision) return { revision: state.revision, events: [] };
    const changes = since === undefined || since > state.revision ? undefined : changesAfter(state, since);
    if (!changes) {
      const features = this.select(state.content, scope).map((feature) => feature.definition);
      const segments = [...state.content.segments.values()];
      return {
        revision: state.revision,
        events: [{ type: "hydration", eventId: state.revision, features, segments }],
      };
    }
    const events = changes.filter((event) => {
      if (event.type === "feature-updated") {
        return inScope(scope, { name: event.feature.name, project: event.feature.project ?? "" });
      }
      if (event.type === "feature-removed") {
        return inScope(scope, { name: event.featureName, project: event.project ?? "" });
      }
      return true;
    });
    return { revision: state.revision, events };
  }

  /**
   * What changed in an environment from one of its contents to a later one, as delta
   * events, oldest first; undefined when that is no longer remembered.
   */
  changesBetween(
    environment: string,
    from: EnvironmentContent,
    to: EnvironmentContent,
  ): DeltaEvent[] | undefined {
    const state = this.environments.get(environment);
    const since = this.revisions.get(from);
    const until = this.revisions.get(to);
    if (!state || since === undefined || until === undefined) return undefined;
    return changesAfter(state, since)?.filter((event) => event.eventId <= until);
  }

  private select(content: EnvironmentContent, scope: Scope): SdkFeature[] {
    return content.features.filter(
      (feature) =>
        inScope(scope, { name: feature.definition.name, project: feature.project }) &&
        (scope.tags.length === 0 || scope.tags.some((tag) => feature.tags.has(tag))),
    );
  }

  /**
   * The listing's JSON, byte for byte what JSON.stringify gives of `{version, features,
   * query, segments}`, made of each flag's ready JSON.
   */
  private listing(content: EnvironmentContent, scope: Scope, inline: boolean): string {
    const selected = this.select(content, scope);
    const query = JSON.stringify({
      ...(scope.tags.length > 0 ? { tag: scope.tags.map((tag) => [tag]) } : {}),
      ...(scope.projects[0] !== "*" ? { project: scope.projects } : {}),
      ...(scope.namePrefix ? { namePrefix: scope.namePrefix } : {}),
      environment: scope.environment,
      inlineSegmentConstraints: inline,
    });
    if (inline) {
      const features = selected.map((feature) => inlinedJsonOf(feature, content.segments));
      return `{"version":2,"features":[${features.join(",")}],"query":${query}}`;
    }
    const used = new Set(
      selected.flatMap((feature) => feature.definition.strategies?.flatMap((s) => s.segments ?? []) ?? []),
    );
    const segments = [...content.segments.values()].filter((segment) => used.has(segment.id));
    const features = selected.map(jsonOf).join(",");
    return `{"version":2,"features":[${features}],"query":${query},"segments":${JSON.stringify(segments)}}`;
  }

  /**
   * The environment as of the current revision. Loads of one environment run one after
   * another, each labelled with the revision read before it starts: a load that began
   * before a commit never answers for the revision after it, and a slow older load never
   * replaces a newer one.
   */
  private state(environment: string): Promise<EnvironmentState> | EnvironmentState {
    const revision = this.events.currentRevision;
    const current = this.environments.get(environment);
    if (current && current.revision === revision) return current;
    const pending = this.loading.get(environment);
    if (pending && pending.revision === revision) return pending.state;
    const state = (pending?.state.catch(() => undefined) ?? Promise.resolve(undefined)).then(() =>
      this.load(environment, revision),
    );
    const entry = { revision, state };
    this.loading.set(environment, entry);
    const settle = () => {
      if (this.loading.get(environment) === entry) this.loading.delete(environment);
    };
    state.then(settle, settle);
    return state;
  }

  private async load(environment: string, revision: number): Promise<EnvironmentState> {
    const previous = this.environments.get(environment);
    if (previous && previous.revision >= revision) return previous;
    const stopTimer = this.telemetry?.documentRebuild.startTimer();
    const read = await readEnvironment(this.db, environment, previous?.content);
    // Most admin changes (tokens, people, settings) leave what SDKs see as it was: the
    // documents made for it, and what was compiled from it, stay good.
    const content = previous && sameContent(previous.content, read) ? previous.content : read;
    const history = previous?.history ?? [];
    let firstRevision = previous?.firstRevision ?? revision;
    if (previous) {
      const events = diff(previous.content, content, revision);
      if (events.length > 0) history.push({ eventId: revision, events });
      if (history.length > HISTORY_LIMIT) {
        // Clients older than what is forgotten get a hydration instead.
        firstRevision = history.splice(0, history.length - HISTORY_LIMIT).at(-1)!.eventId;
      }
    }
    const documents = content === previous?.content ? previous.documents : new Map();
    const state: EnvironmentState = { revision, content, documents, history, firstRevision };
    this.environments.set(environment, state);
    this.revisions.set(content, revision);
    stopTimer?.();
    return state;
  }
}
