import { AsyncLocalStorage } from "node:async_hooks";
import { type Actor, actorName, actorUserId } from "../../access/actor.js";
import { hiddenProjects } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { Subscriber, Unsubscribe } from "../../db/notifications.js";
import type { Telemetry } from "../../telemetry.js";
import type { EventInput, EventType } from "./catalogue.js";
import { Outbox } from "./outbox.js";
import { CHANGES_CHANNEL, CREDENTIALS_SUFFIX, type EventQuery, eventStore, type NewEvent } from "./store.js";

/** What a service holds while it changes something: the transaction, and a way to record its events. */
export interface Change {
  db: Db;
  /** Who acts: the author of every event recorded. */
  actor: Actor;
  record(event: EventInput): void;
  /** Says that the transaction revokes, expires or creates a credential: every instance forgets what it cached. */
  credentialsChanged(): void;
  /**
   * The project whose approved change request is being applied, if one is: its environments
   * that require change requests let the change through; another project's do not, since
   * its reviewers never saw it.
   */
  reviewed: string | undefined;
}

/** The transaction in progress on this call chain, which a change made within it joins. */
interface Open {
  db: Db;
  reviewed: string | undefined;
  append(event: NewEvent): void;
  credentialsChanged(): void;
}

export type RevisionListener = (revision: number) => void;

/** How an instance follows the commits of others sharing its database. */
export interface Follow {
  subscribe?: (channel: string, subscriber: Subscriber) => Unsubscribe;
  /** The safety net: how often the revision is read, in case a notification was lost. */
  pollMs: number;
}

/**
 * The event log, and the one way to write: a change and the events that record it
 * commit together or not at all, and advance the revision in the same transaction.
 * After a commit, listeners hear of the new revision (the SDK document caches, the outbox)
 * and of changed credentials (the token cache) — this instance's commits at once, other
 * instances' through PostgreSQL notifications. What acts on the events themselves is an
 * outbox consumer: it reads them from the log, so none is lost to a crash.
 */
export class EventService {
  private revision = 0;
  private readonly revisionListeners: RevisionListener[] = [];
  private readonly credentialListeners: (() => void)[] = [];
  private poller: NodeJS.Timeout | undefined;
  private unsubscribe: Unsubscribe | undefined;
  private readonly open = new AsyncLocalStorage<Open>();
  /** Changes whose transaction is open: `open` holds their context. */
  private changing = 0;

  /** Hands the event log to its consumers after commit; the app starts and stops it. */
  readonly outbox: Outbox;

  constructor(
    private readonly db: Db,
    private readonly telemetry?: Telemetry,
  ) {
    this.outbox = new Outbox(db, this);
  }

  async start(follow?: Follow): Promise<void> {
    this.revision = await eventStore.revision(this.db);
    if (!follow) return;
    this.unsubscribe = follow.subscribe?.(CHANGES_CHANNEL, {
      message: (payload) => {
        const credentials = payload.endsWith(CREDENTIALS_SUFFIX);
        const revision = Number.parseInt(payload, 10);
        if (Number.isSafeInteger(revision)) this.advance(revision, credentials);
      },
      connected: () => void this.catchUp(),
      failed: () => {},
    });
    this.poller = setInterval(() => void this.catchUp(), follow.pollMs);
    this.poller.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.poller);
    await this.unsubscribe?.();
  }

  get currentRevision(): number {
    return this.revision;
  }

  onRevision(listener: RevisionListener): void {
    this.revisionListeners.push(listener);
  }

  onCredentialsChanged(listener: () => void): void {
    this.credentialListeners.push(listener);
  }

  /**
   * The one way to change admin data: the work and the events it records, authored by the
   * actor, commit together or not at all, and advance the revision in the same transaction.
   * A change made while another is in progress on the same call chain joins its
   * transaction: applying a change request runs each of its changes through the service a
   * direct change uses, and all of them commit or none.
   */
  async change<T>(
    actor: Actor,
    work: (change: Change) => Promise<T>,
    options: { reviewed?: string } = {},
  ): Promise<T> {
    const author = { createdBy: actorName(actor), createdByUserId: actorUserId(actor) };
    const outer = this.open.getStore();
    if (outer) {
      const open =
        options.reviewed !== undefined && outer.reviewed === undefined
          ? { ...outer, reviewed: options.reviewed }
          : outer;
      return this.open.run(open, () =>
        work({
          db: open.db,
          actor,
          reviewed: open.reviewed,
          record: (event) => open.append({ ...event, ...author }),
          credentialsChanged: open.credentialsChanged,
        }),
      );
    }
    const pending: NewEvent[] = [];
    let credentials = false;
    let revision: number | undefined;
    this.changing++;
    const transaction = this.db.transaction().execute(async (db) => {
      pending.length = 0;
      const open: Open = {
        db,
        reviewed: options.reviewed,
        append: (event) => pending.push(event),
        credentialsChanged: () => {
          credentials = true;
        },
      };
      const value = await this.open.run(open, () =>
        work({
          db,
          actor,
          reviewed: open.reviewed,
          record: (event) => pending.push({ ...event, ...author }),
          credentialsChanged: open.credentialsChanged,
        }),
      );
      // Last, so the revision row is locked for as short a time as the transaction allows;
      // and before the events are numbered, so that event ids, like revisions, are handed
      // out in commit order: the outbox's cursors rely on it (see outbox.ts).
      if (pending.length > 0 || credentials) revision = await eventStore.advanceRevision(db, credentials);
      if (pending.length > 0) await eventStore.append(db, pending);
      return value;
    });
    const result = await transaction.finally(() => {
      // Enabled, an AsyncLocalStorage hooks every promise and async resource of the process,
      // SDK polls' included (some 8% of a 304's JavaScript): off while no change is open.
      if (--this.changing === 0) this.open.disable();
    });
    this.telemetry?.recordEvents(pending);
    if (revision !== undefined) this.advance(revision, credentials);
    return result;
  }

  /**
   * Events of private projects the actor may not see are left out, as if they never happened:
   * those that name such a project anywhere, or a flag now in one (see the store).
   */
  search(actor: Actor, query: EventQuery) {
    return eventStore.search(this.db, { ...query, hidden: hiddenProjects(actor) });
  }

  /**
   * A flag's events, oldest first, each with the moment of its transaction; with `actor`,
   * only those `search` shows them. What a flag's history is rebuilt from.
   */
  ofFeature(db: Db, name: string, actor?: Actor) {
    return eventStore.ofFeature(db, name, actor ? hiddenProjects(actor) : []);
  }

  /** The events of some types after a position, oldest first. */
  ofTypes(db: Db, types: readonly EventType[], after = 0) {
    return eventStore.ofTypes(db, types, after);
  }

  /**
   * Reads the revision directly: after a reconnect, and on the slow poll. What changed in
   * between is unknown, so cached credentials are dropped too.
   */
  private async catchUp(): Promise<void> {
    try {
      const revision = await eventStore.revision(this.db);
      if (revision > this.revision) this.advance(revision, true);
    } catch {
      // The database is briefly unreachable; the next tick tries again.
    }
  }

  private advance(revision: number, credentials: boolean): void {
    // Credentials count even when their revision arrives after a later one: each notice is
    // a revocation that must not be skipped.
    if (credentials) for (const listener of this.credentialListeners) listener();
    if (revision <= this.revision) return;
    this.revision = revision;
    for (const listener of this.revisionListeners) listener(revision);
  }
}
