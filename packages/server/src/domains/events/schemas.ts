import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";
import { EVENT_TYPES } from "./catalogue.js";

const EventType = Type.Enum(EVENT_TYPES);

const Tag = Type.Object({ type: Type.String(), value: Type.String() });

const NullableText = Nullable(Type.String());

/** An event of the log, as the API lists it and as outbox consumers receive it. */
export const StoredEvent = Type.Object({
  id: Type.Integer(),
  type: EventType,
  createdAt: Type.String({ format: "date-time" }),
  createdBy: Type.String(),
  createdByUserId: Nullable(Type.Integer()),
  project: NullableText,
  environment: NullableText,
  featureName: NullableText,
  data: Type.Unknown(),
  preData: Type.Unknown(),
  tags: Type.Array(Tag),
});
export type StoredEvent = Static<typeof StoredEvent>;

const filters = {
  project: Type.Optional(Type.String()),
  feature: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
  createdBy: Type.Optional(Type.String({ description: "Part of the author's name, in any case" })),
  from: Type.Optional(
    Type.String({ format: "date-time", description: "Events created at or after this moment" }),
  ),
  to: Type.Optional(Type.String({ format: "date-time", description: "Events created before this moment" })),
};

/** Endpoint 16: only the spec's event types may be asked for. */
export const EventSearch = Type.Object({
  type: Type.Optional(EventType),
  ...filters,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  /** The id of the newest event to list; 0, as no event has it, lists from the newest too. */
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const EventListQuery = Type.Object({
  type: Type.Optional(Type.String()),
  ...filters,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  /** Matching events to skip, newest first. */
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export type EventListQuery = Static<typeof EventListQuery>;

export const EventPage = Type.Object({
  version: Type.Literal(1),
  events: Type.Array(StoredEvent),
  totalEvents: Type.Integer(),
});
