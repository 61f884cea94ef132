import type { Db } from "../../db/connection.js";
import { type EventQuery, eventStore, type NewEvent, type StoredEvent } from "./store.js";

/** What a service holds while it writes: the transaction, and a way to record its events. */
export interface Tx {
  db: Db;
  record(event: NewEvent): void;
}

export type EventListener = (events: readonly StoredEvent[]) => void;
export type RevisionListener = (revision: number) => void;

/**
 * The event log, and the one way to write: a change and the events that record it
 * commit together or not at all. After a commit, listeners hear of the new events
 * (addons, lifecycle) and of the new revision (the SDK document caches).
 */
export class EventService {
  private revision = 0;
  private readonly eventListeners: EventListener[] = [];
  private readonly revisionListeners: RevisionListener[] = [];
  private poller: NodeJS.Timeout | undefined;

  constructor(private readonly db: Db) {}

  /** Reads the current revision and, when `pollMs` is set, follows commits made by other instances. */
  async start(pollMs?: number): Promise<void> {
    this.revision = await eventStore.latestId(this.db);
    if (pollMs) {
      this.poller = setInterval(() => void this.refreshRevision(), pollMs);
      this.poller.unref();
    }
  }

  stop(): void {
    clearInterval(this.poller);
  }

  get currentRevision(): number {
    return this.revision;
  }

  onEvents(listener: EventListener): void {
    this.eventListeners.push(listener);
  }

  onRevision(listener: RevisionListener): void {
    this.revisionListeners.push(listener);
  }

  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    let stored: StoredEvent[] = [];
    const result = await this.db.transaction().execute(async (db) => {
      const pending: NewEvent[] = [];
      const value = await work({ db, record: (event) => pending.push(event) });
      if (pending.length > 0) stored = await eventStore.append(db, pending);
      return value;
    });
    if (stored.length > 0) {
      this.advance(stored[stored.length - 1]!.id);
      for (const listener of this.eventListeners) listener(stored);
    }
    return result;
  }

  /** Records events that change nothing else (an application announcing itself, say). */
  async record(events: NewEvent[]): Promise<void> {
    await this.transaction(async (tx) => {
      for (const event of events) tx.record(event);
    });
  }

  search(query: EventQuery) {
    return eventStore.search(this.db, query);
  }

  private async refreshRevision(): Promise<void> {
    try {
      this.advance(await eventStore.latestId(this.db));
    } catch {
      // The database is briefly unreachable; the next tick tries again.
    }
  }

  private advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    for (const listener of this.revisionListeners) listener(revision);
  }
}
