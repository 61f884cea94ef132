import type { Evaluation } from "@signalbox/engine";
import { BodyFingerprint, type Piece, pieceOf } from "./etag.js";

/** A response body ready for the socket, and its ETag. */
export interface SerializedResponse {
  body: Buffer;
  etag: string;
}

/**
 * How a result is spelled: as @unleash/proxy answers `/proxy`, or as the flag service's
 * frontend API answers `/api/frontend` (which adds the older `featureEnabled`).
 */
export type Spelling = "proxy" | "frontend-api";

const spelled: Record<Spelling, (evaluation: Evaluation) => string> = {
  proxy: (evaluation) => JSON.stringify(evaluation),
  "frontend-api": ({ name, enabled, impressionData, variant }) =>
    JSON.stringify({
      name,
      enabled,
      impressionData,
      variant: {
        name: variant.name,
        enabled: variant.enabled,
        feature_enabled: variant.feature_enabled,
        featureEnabled: variant.feature_enabled,
        ...(variant.payload ? { payload: variant.payload } : {}),
      },
    }),
};

// A snapshot hands out the same frozen result object every time a flag evaluates the same
// way, so each result is serialised, encoded and hashed once per spelling and then only
// looked up; a response is a copy of ready bytes.
const pieces: Record<Spelling, WeakMap<Evaluation, Piece>> = {
  proxy: new WeakMap(),
  "frontend-api": new WeakMap(),
};

function pieceFor(evaluation: Evaluation, spelling: Spelling): Piece {
  let piece = pieces[spelling].get(evaluation);
  if (piece === undefined) {
    piece = pieceOf(spelled[spelling](evaluation));
    pieces[spelling].set(evaluation, piece);
  }
  return piece;
}

const OPEN = pieceOf('{"toggles":[');
const COMMA = pieceOf(",");
const CLOSE = pieceOf("]}");

/** The `{toggles: [...]}` envelope for the given results, and its ETag; `enabledOnly` leaves out what is off. */
export function serializeToggles(
  evaluations: readonly Evaluation[],
  enabledOnly: boolean,
  spelling: Spelling = "proxy",
): SerializedResponse {
  const pieces: Piece[] = [];
  for (const evaluation of evaluations) {
    if (!enabledOnly || evaluation.enabled) pieces.push(pieceFor(evaluation, spelling));
  }
  return joinPieces(OPEN, pieces, CLOSE);
}

/** `open`, the pieces separated by commas, and `close`, as one body with its ETag. */
export function joinPieces(open: Piece, pieces: readonly Piece[], close: Piece): SerializedResponse {
  const fingerprint = new BodyFingerprint();
  fingerprint.add(open);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) fingerprint.add(COMMA);
    fingerprint.add(pieces[i]!);
  }
  fingerprint.add(close);
  // Copied into one buffer of the length already counted: cheaper than Buffer.concat's own pass.
  const body = Buffer.allocUnsafe(fingerprint.length);
  let offset = open.bytes.copy(body, 0);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) offset += COMMA.bytes.copy(body, offset);
    offset += pieces[i]!.bytes.copy(body, offset);
  }
  close.bytes.copy(body, offset);
  return { body, etag: fingerprint.etag() };
}
