import { Type } from "typebox";

// What the proxy answers besides the protocol's shapes (@signalbox/protocol): plain-text
// answers and the reference proxy's error body.

/** A plain-text response, documented with its media type. */
export function text(description: string, mediaType = "text/plain") {
  return { description, content: { [mediaType]: { schema: Type.String() } } };
}

export const ErrorBody = Type.Object({
  error: Type.String(),
  validation: Type.Optional(Type.Array(Type.Unknown())),
});
