import type { ErrorName } from "@signalbox/protocol";
import { Type } from "typebox";

// The frontend API's own answers; its requests and results are the wire protocol's
// (@signalbox/protocol).

/** The refusal of the routes the frontend API keeps only to refuse, as the reference does. */
export const NotImplemented = Type.Object(
  {
    id: Type.String(),
    name: Type.Literal("NotImplementedError" satisfies ErrorName),
    message: Type.String(),
  },
  { description: "The frontend API does not serve this endpoint." },
);
