import type { ApiError } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { EmittedEventType, EventInput, EventShapes, EventSubject } from "./catalogue.js";
import type { Change } from "./service.js";

type CreatedType<V> = {
  [T in EmittedEventType]: EventShapes[T] extends { data: V } ? T : never;
}[EmittedEventType];
type UpdatedType<V> = {
  [T in EmittedEventType]: EventShapes[T] extends { data: V; preData: V } ? T : never;
}[EmittedEventType];
type DeletedType<V> = {
  [T in EmittedEventType]: EventShapes[T] extends { preData?: V } ? T : never;
}[EmittedEventType];

export interface ResourceSpec<K, V> {
  /** The resource as its API shows it, which is also what its events carry. */
  read(db: Db, key: K): Promise<V | undefined>;
  missing(key: K): ApiError;
  subject?(view: V): EventSubject;
  events: { created?: CreatedType<V>; updated?: UpdatedType<V>; deleted?: DeletedType<V> };
}

/**
 * Create, update and delete, each with its event, inside a change: the pattern every
 * domain with a plain resource repeats. The event carries the resource as it reads after
 * (data) and before (preData) the write.
 */
export function resource<K, V>(spec: ResourceSpec<K, V>) {
  const subject = (view: V): EventSubject => spec.subject?.(view) ?? {};
  const record = (change: Change, event: unknown) => change.record(event as EventInput);

  async function require(db: Db, key: K): Promise<V> {
    const view = await spec.read(db, key);
    if (view === undefined) throw spec.missing(key);
    return view;
  }

  return {
    require,

    async create(change: Change, insert: () => Promise<K>): Promise<V> {
      const created = await require(change.db, await insert());
      if (spec.events.created)
        record(change, { type: spec.events.created, ...subject(created), data: created });
      return created;
    },

    async update(change: Change, key: K, apply: (before: V) => Promise<void>): Promise<V> {
      const before = await require(change.db, key);
      await apply(before);
      const after = await require(change.db, key);
      if (spec.events.updated) {
        record(change, { type: spec.events.updated, ...subject(after), data: after, preData: before });
      }
      return after;
    },

    async remove(change: Change, key: K, apply: (before: V) => Promise<void>): Promise<V> {
      const before = await require(change.db, key);
      await apply(before);
      if (spec.events.deleted)
        record(change, { type: spec.events.deleted, ...subject(before), preData: before });
      return before;
    },
  };
}
