import { type Static, Type } from "typebox";

// The SDK API's requests; its responses are the wire protocol's (@signalbox/protocol).

const tag = Type.String({ pattern: "^\\w+:.+$", description: "type:value" });

/** Filters an SDK may add; they only narrow what its token allows. */
export const ScopeQuery = Type.Object({
  project: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(Type.Union([tag, Type.Array(tag)])),
  environment: Type.Optional(Type.String({ description: "Only for tokens of every environment." })),
});
export type ScopeQuery = Static<typeof ScopeQuery>;

export const FeatureName = Type.Object({ featureName: Type.String() });

export const NotModified = Type.Null({ description: "Nothing changed since the ETag in If-None-Match." });

export const LastEventId = Type.Object({
  "last-event-id": Type.Optional(
    Type.String({ description: "The id of the last event the SDK received, to resume from." }),
  ),
});
