import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../../db/connection.js";
import type { StoredEvent } from "./schemas.js";
import { cursorStore, eventStore } from "./store.js";

/** Something that acts on the event log after commit: an addon, the scheduler, live updates. */
export interface Consumer {
  /** Its cursor's key: the same on every instance and across restarts. */
  name: string;
  /**
   * Handles the next events, oldest first. Resolving acknowledges them; throwing hands them
   * over again later, so an event is handled at least once and may be handled twice. The
   * signal aborts when this instance stops or another one has taken the consumer over.
   */
  handle(events: readonly StoredEvent[], signal: AbortSignal): Promise<void>;
  /** The most events handed over at once; 100 when unset. */
  batchSize?: number;
}

export interface OutboxLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface OutboxTiming {
  /** How often every consumer is looked at besides on commits: how soon a lapsed claim is taken over. */
  pollMs: number;
  /** How long a claim lasts unrenewed: how long a consumer waits after the instance delivering to it died. */
  leaseMs: number;
  /** The pause after a consumer's first failure, doubled after each further one up to `retryMaxMs`. */
  retryMinMs: number;
  retryMaxMs: number;
  /**
   * How long stopping waits for deliveries in flight before aborting them. A webhook already
   * sent whose answer is cut off would be sent again by the next instance.
   */
  stopGraceMs: number;
}

const DEFAULT_TIMING: OutboxTiming = {
  pollMs: 2000,
  leaseMs: 10_000,
  retryMinMs: 1000,
  retryMaxMs: 60_000,
  stopGraceMs: 2000,
};

interface Subscription {
  consumer: Consumer;
  batchSize: number;
  /** The delivery loop, while one runs. */
  draining?: Promise<void>;
  /** Something may have been committed since the loop last looked. */
  again: boolean;
  failures: number;
  retry?: NodeJS.Timeout;
  controller?: AbortController;
}

/**
 * Hands the event log to its consumers after commit, each from a cursor stored in the
 * database: at least once, in order, across restarts, and by one instance at a time when
 * several share a database.
 *
 * Commit order. Event ids come from a sequence, and a transaction that commits later could
 * hold a smaller id than one already delivered; a cursor past it would skip it forever.
 * EventService.transaction prevents that at the source: it locks the revision row before
 * it numbers its events and holds the lock until commit, so ids are handed out in commit
 * order (rolled-back transactions leave gaps, nothing else). Whatever a reader sees after a
 * cursor is therefore a prefix of what will ever be there, and reading `id > cursor` in id
 * order is enough: no horizon to compute, no second sequence to keep.
 *
 * One instance at a time. A consumer is claimed with a lease on its cursor row (one UPDATE
 * whose row lock decides between instances racing for it), renewed while its handler runs
 * and given up with the cursor's advance. No lock or transaction is held while a handler
 * runs: PGlite is a single connection, which a handler that writes (the scheduler applying
 * a change) would otherwise wait for forever, and on PostgreSQL a slow webhook would pin a
 * pooled connection. The price is that a killed instance's consumers wait out its lease.
 */
export class Outbox {
  /** Who holds a claim, as an operator reading the cursor table would want to know. */
  private readonly holder = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly timing: OutboxTiming;
  private log: OutboxLog | undefined;
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    commits: { onRevision(listener: () => void): void },
    timing: Partial<OutboxTiming> = {},
  ) {
    this.timing = { ...DEFAULT_TIMING, ...timing };
    // This instance's commits, and other instances' as their notifications arrive.
    commits.onRevision(() => this.wakeAll());
  }

  /** Adds a consumer; a new one starts at the end of the log. Delivery begins once started. */
  async register(consumer: Consumer): Promise<void> {
    if (this.subscriptions.has(consumer.name)) throw new Error(`outbox consumer ${consumer.name} exists`);
    const subscription: Subscription = {
      consumer,
      batchSize: consumer.batchSize ?? 100,
      again: false,
      failures: 0,
    };
    this.subscriptions.set(consumer.name, subscription);
    try {
      await cursorStore.create(this.db, consumer.name);
    } catch (error) {
      this.subscriptions.delete(consumer.name);
      throw error;
    }
    this.wake(subscription);
  }

  /**
   * Stops delivering to a consumer on this instance, letting a delivery in flight end (its
   * signal aborts). Its cursor stays: whoever removes what the consumer delivered for
   * removes that, in the same transaction.
   */
  async unregister(name: string): Promise<void> {
    const subscription = this.subscriptions.get(name);
    if (!subscription) return;
    this.subscriptions.delete(name);
    clearTimeout(subscription.retry);
    subscription.retry = undefined;
    subscription.controller?.abort();
    await subscription.draining;
  }

  /**
   * Makes a consumer's cursor at the end of the log unless it has one, within the caller's
   * transaction: for a consumer that starts with the change that makes it.
   */
  open(db: Db, name: string): Promise<void> {
    return cursorStore.create(db, name);
  }

  /** Removes a consumer's cursor within the caller's transaction; unregistering stops delivery. */
  forget(db: Db, name: string): Promise<void> {
    return cursorStore.remove(db, name);
  }

  start(log: OutboxLog): void {
    this.log = log;
    this.poller = setInterval(() => this.wakeAll(), this.timing.pollMs);
    this.poller.unref();
    this.wakeAll();
  }

  /**
   * Lets deliveries in flight finish, for up to the grace period before their signals abort,
   * then gives up this instance's claims.
   */
  async stop(): Promise<void> {
    const log = this.log;
    if (!log) return;
    this.log = undefined;
    clearInterval(this.poller);
    const subscriptions = [...this.subscriptions.values()];
    for (const subscription of subscriptions) {
      clearTimeout(subscription.retry);
      subscription.retry = undefined;
    }
    const drained = Promise.all(subscriptions.map((subscription) => subscription.draining));
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      drained,
      new Promise((resolve) => (grace = setTimeout(resolve, this.timing.stopGraceMs))),
    ]);
    clearTimeout(grace);
    for (const subscription of subscriptions) subscription.controller?.abort();
    await drained;
    await cursorStore
      .release(this.db, this.holder)
      .catch((error) => log.warn({ err: error }, "outbox: could not give up its claims"));
  }

  /** How far each consumer is behind: the newest event id minus its cursor. */
  lag(): Promise<Record<string, number>> {
    return cursorStore.lag(this.db, [...this.subscriptions.keys()]);
  }

  private wakeAll(): void {
    for (const subscription of this.subscriptions.values()) this.wake(subscription);
  }

  private wake(subscription: Subscription): void {
    // A consumer pausing after a failure is not hurried by commits; one unregistered is done.
    if (!this.log || subscription.retry || !this.registered(subscription)) return;
    if (subscription.draining) {
      subscription.again = true;
      return;
    }
    subscription.draining = this.drain(subscription).finally(() => {
      subscription.draining = undefined;
      if (subscription.again) this.wake(subscription);
    });
  }

  private async drain(subscription: Subscription): Promise<void> {
    do subscription.again = false;
    while (this.log && this.registered(subscription) && (await this.deliver(subscription)));
  }

  private registered(subscription: Subscription): boolean {
    return this.subscriptions.get(subscription.consumer.name) === subscription;
  }

  /** Hands the consumer its next events, when it has some and this instance may; true when it did. */
  private async deliver(subscription: Subscription): Promise<boolean> {
    const { name } = subscription.consumer;
    const controller = new AbortController();
    subscription.controller = controller;
    let renewing: NodeJS.Timeout | undefined;
    try {
      const position = await cursorStore.claim(this.db, name, this.holder, this.timing.leaseMs);
      if (position === undefined) return false;
      const events = await eventStore.after(this.db, position, subscription.batchSize);
      renewing = setInterval(() => void this.renew(name, controller), this.timing.leaseMs / 3);
      await subscription.consumer.handle(events, controller.signal);
      clearInterval(renewing);
      if (!(await cursorStore.advance(this.db, name, this.holder, events[events.length - 1]!.id))) {
        this.log?.warn({ consumer: name }, "outbox: another instance took the consumer over mid-delivery");
        return false;
      }
      subscription.failures = 0;
      return true;
    } catch (error) {
      // Stopping, or taken over: the claim is given up, or already someone else's.
      if (!controller.signal.aborted) await this.retryLater(subscription, error);
      return false;
    } finally {
      clearInterval(renewing);
      subscription.controller = undefined;
    }
  }

  private async renew(name: string, controller: AbortController): Promise<void> {
    // An unreachable database says nothing of the claim: the next renewal asks again.
    const kept = await cursorStore.extend(this.db, name, this.holder, this.timing.leaseMs).catch(() => true);
    if (!kept) controller.abort();
  }

  private async retryLater(subscription: Subscription, error: unknown): Promise<void> {
    const { name } = subscription.consumer;
    subscription.failures += 1;
    const delay = Math.min(this.timing.retryMinMs * 2 ** (subscription.failures - 1), this.timing.retryMaxMs);
    this.log?.error(
      { err: error, consumer: name, attempt: subscription.failures, retryInMs: delay },
      "outbox: delivery failed; the events are handed over again later",
    );
    // The claim is kept through the pause, so that no other instance retries sooner.
    await cursorStore.extend(this.db, name, this.holder, delay).catch(() => {});
    subscription.retry = setTimeout(() => {
      subscription.retry = undefined;
      this.wake(subscription);
    }, delay);
    subscription.retry.unref();
  }
}
