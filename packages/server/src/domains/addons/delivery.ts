import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "../../db/connection.js";
import type { Outbox } from "../events/outbox.js";
import type { StoredEvent } from "../events/schemas.js";
import type { Outbound, OutboundRequest } from "./outbound.js";
import { type DeliveryContext, PROVIDERS } from "./providers.js";
import type { Attempt, DeliveryState } from "./schemas.js";
import { type AddonRow, addonStore, integrationEventStore } from "./store.js";

export interface DeliveryTiming {
  /** The pause after a request's first failed attempt, doubled after each further one. */
  retryMs: number;
  /** How long one event's requests are retried before it is marked failed. */
  giveUpMs: number;
}

/** How a delivery went, and its entry in the addon's log. */
export interface Delivered {
  state: DeliveryState;
  id: string;
}

/** How many deliveries each addon's log keeps. */
export const KEPT_DELIVERIES = 100;

/** An empty list, or one holding "*", matches everything; so does an event outside any project or environment. */
const within = (list: readonly string[], value: string | null): boolean =>
  value === null || list.length === 0 || list.includes("*") || list.includes(value);

/** Whether the addon listens to the event: its type, limited by its projects and environments (spec, Events rule 2). */
export const listensTo = (addon: AddonRow, event: StoredEvent): boolean =>
  addon.events.includes(event.type) &&
  within(addon.projects, event.project) &&
  within(addon.environments, event.environment);

/** The outbox consumer of one addon, by the name of its cursor. */
export const consumerName = (addonId: number): string => `addon:${addonId}`;

/**
 * Delivers the event log to the enabled addons, each addon an outbox consumer of its own
 * (`addon:<id>`), with its own cursor: at least once and in order per addon, and an addon
 * whose destination is down, retrying for as long as the give-up time, holds up nobody else.
 *
 * Addons come and go on any instance, while the outbox's consumers are registered on each:
 * `sync` matches this instance's consumers to the enabled addons, after each change made here
 * and every few seconds for those made elsewhere. A consumer's cursor is made at the end of
 * the log by the transaction that creates or enables the addon, and removed by the one that
 * disables or deletes it, so an addon hears of what happens while it is enabled, whichever
 * instance delivers to it.
 */
export class AddonDelivery {
  /** The addons this instance has a consumer for. */
  private readonly delivering = new Set<number>();
  /** Syncs run one after another, so that a consumer is never registered twice. */
  private syncs: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly outbound: Outbound,
    private readonly context: DeliveryContext,
    private readonly timing: DeliveryTiming,
  ) {}

  /** Registers a consumer for each enabled addon that has none here, and drops those of addons disabled or gone. */
  sync(): Promise<void> {
    const next = this.syncs.then(() => this.match());
    this.syncs = next.catch(() => {});
    return next;
  }

  /** Stops every addon's delivery on this instance. */
  stop(): Promise<void> {
    const next = this.syncs.then(async () => {
      for (const id of this.delivering) await this.outbox.unregister(consumerName(id));
      this.delivering.clear();
    });
    this.syncs = next.catch(() => {});
    return next;
  }

  private async match(): Promise<void> {
    const enabled = new Set((await addonStore.enabled(this.db)).map((addon) => addon.id));
    for (const id of this.delivering) {
      if (enabled.has(id)) continue;
      this.delivering.delete(id);
      await this.outbox.unregister(consumerName(id));
    }
    for (const id of enabled) {
      if (this.delivering.has(id)) continue;
      this.delivering.add(id);
      await this.outbox.register({
        name: consumerName(id),
        batchSize: 10,
        handle: (events, signal) => this.handle(id, events, signal),
      });
    }
  }

  private async handle(id: number, events: readonly StoredEvent[], signal: AbortSignal): Promise<void> {
    // Read afresh, so that a change to its events, filters or destination counts from the next batch.
    const addon = await addonStore.byId(this.db, id);
    if (!addon?.enabled) return;
    await this.deliverInOrder(
      addon,
      events.filter((event) => listensTo(addon, event)),
      signal,
    );
  }

  /**
   * One event to one addon now, whether it listens to it or not, with a single attempt per
   * request: a test send, whose caller waits for the answer. Logged like any delivery.
   */
  async deliverOnce(addon: AddonRow, event: StoredEvent, signal: AbortSignal): Promise<Delivered> {
    return this.deliver(addon, event, signal, 0);
  }

  private async deliverInOrder(addon: AddonRow, events: StoredEvent[], signal: AbortSignal): Promise<void> {
    let down = false;
    for (const event of events) {
      const { state } = await this.deliver(addon, event, signal, down ? 0 : this.timing.giveUpMs);
      down = state === "failed";
    }
  }

  /**
   * Sends one event's requests, each retried until it succeeds or `giveUpMs` has passed (0:
   * one attempt), and logs how it went.
   */
  private async deliver(
    addon: AddonRow,
    event: StoredEvent,
    signal: AbortSignal,
    giveUpMs: number,
  ): Promise<Delivered> {
    const provider = PROVIDERS.get(addon.provider);
    let requests: Awaited<ReturnType<NonNullable<typeof provider>["requests"]>>;
    try {
      if (!provider) throw new Error(`unknown provider ${addon.provider}`);
      requests = await provider.requests(event, addon.parameters, this.context);
    } catch (error) {
      return this.log(
        addon,
        event,
        "failed",
        `Could not build the request: ${(error as Error).message}`,
        {},
        [],
      );
    }
    if ("nowhere" in requests) return this.log(addon, event, "failed", requests.nowhere, {}, []);

    const started = Date.now();
    const attempts: Attempt[] = [];
    let delivered = 0;
    for (const request of requests) {
      if (await this.attemptUntilDone(request, attempts, started, giveUpMs, signal)) delivered += 1;
    }
    const urlIsSecret = provider!.definition.parameters.some((p) => p.name === "url" && p.sensitive);
    const [first] = requests;
    const details: Record<string, unknown> = first
      ? {
          url: shownUrl(first.url, urlIsSecret),
          contentType: first.headers["content-type"],
          body: first.body,
          ...(requests.length > 1 || first.target
            ? { targets: requests.map((request) => request.target) }
            : {}),
        }
      : {};
    const last = attempts[attempts.length - 1];
    const tries = `${attempts.length} attempt${attempts.length === 1 ? "" : "s"}`;
    if (delivered === requests.length) {
      return this.log(
        addon,
        event,
        "success",
        `Delivered (${last?.statusCode}) after ${tries}.`,
        details,
        attempts,
      );
    }
    const why = last?.error ?? "not delivered";
    if (delivered === 0) {
      return this.log(addon, event, "failed", `Not delivered after ${tries}: ${why}.`, details, attempts);
    }
    const summary = `Delivered ${delivered} of ${requests.length} requests; the last failure: ${why}.`;
    return this.log(addon, event, "successWithErrors", summary, details, attempts);
  }

  private async attemptUntilDone(
    request: OutboundRequest,
    attempts: Attempt[],
    started: number,
    giveUpMs: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      const at = new Date().toISOString();
      const outcome = await this.outbound.send(request, signal);
      attempts.push({
        attempt,
        at,
        ...(request.target ? { target: request.target } : {}),
        statusCode: outcome.statusCode,
        response: outcome.response,
        error: outcome.error,
      });
      if (outcome.ok) return true;
      const pause = this.timing.retryMs * 2 ** (attempt - 1);
      // Without the explicit 0, a zero retry pause could still retry within the same millisecond.
      if (!outcome.retryable || giveUpMs <= 0 || Date.now() + pause - started > giveUpMs) return false;
      await sleep(pause, undefined, { signal });
    }
  }

  private async log(
    addon: AddonRow,
    event: StoredEvent,
    state: DeliveryState,
    stateDetails: string,
    details: Record<string, unknown>,
    attempts: Attempt[],
  ): Promise<Delivered> {
    const id = await integrationEventStore.record(
      this.db,
      {
        integration_id: addon.id,
        state,
        state_details: stateDetails,
        event: JSON.stringify(event),
        details: JSON.stringify(details),
        attempts: JSON.stringify(attempts),
      },
      KEPT_DELIVERIES,
    );
    return { state, id };
  }
}

/** A URL that is itself a secret (an incoming webhook's) is shown by its origin only. */
function shownUrl(url: string, secret: boolean): string {
  if (!secret) return url;
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return "…";
  }
}
