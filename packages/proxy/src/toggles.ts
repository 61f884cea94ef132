import type { Evaluation } from "@signalbox/engine";
import { BodyFingerprint, type Piece, pieceOf } from "./etag.js";

/** A response body ready for the socket, and its ETag. */
export interface SerializedResponse {
  body: Buffer;
  etag: string;
}

// A snapshot hands out the same frozen result object every time a flag evaluates the same
// way, so each result is serialised, encoded and hashed once and then only looked up; a
// response is a copy of ready bytes.
const pieces = new WeakMap<Evaluation, Piece>();

function pieceFor(evaluation: Evaluation): Piece {
  let piece = pieces.get(evaluation);
  if (piece === undefined) {
    piece = pieceOf(JSON.stringify(evaluation));
    pieces.set(evaluation, piece);
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
): SerializedResponse {
  const fingerprint = new BodyFingerprint();
  const parts: Buffer[] = [OPEN.bytes];
  fingerprint.add(OPEN);
  for (const evaluation of evaluations) {
    if (enabledOnly && !evaluation.enabled) continue;
    if (parts.length > 1) {
      parts.push(COMMA.bytes);
      fingerprint.add(COMMA);
    }
    const piece = pieceFor(evaluation);
    parts.push(piece.bytes);
    fingerprint.add(piece);
  }
  parts.push(CLOSE.bytes);
  fingerprint.add(CLOSE);
  return { body: Buffer.concat(parts, fingerprint.length), etag: fingerprint.etag() };
}
