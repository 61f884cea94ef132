/**
 * Weak ETags derived from response bodies. A body made of pieces that repeat across
 * responses (one per flag result) is fingerprinted from per-piece hashes computed once,
 * so the cost per response grows with the number of pieces, not with the bytes; the
 * result still depends on every byte of the body and on the order of the pieces.
 */

/** A fragment of a response body, encoded and hashed once. */
export interface Piece {
  bytes: Buffer;
  h1: number;
  h2: number;
}

/** Two independent 32-bit hashes of a text (FNV-1a and a multiply-xorshift), 64 bits together. */
export function pieceOf(text: string): Piece {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return { bytes: Buffer.from(text), h1: h1 >>> 0, h2: h2 >>> 0 };
}

const hex8 = (value: number) => (value >>> 0).toString(16).padStart(8, "0");

/** Fingerprint of a sequence of pieces, order included. */
export class BodyFingerprint {
  private h1 = 0x811c9dc5;
  private h2 = 0x9747b28c;
  length = 0;

  add(piece: Piece): void {
    this.h1 = Math.imul(this.h1 ^ piece.h1, 0x01000193);
    this.h2 = Math.imul(((this.h2 << 5) | (this.h2 >>> 27)) ^ piece.h2, 0x9e3779b1);
    this.length += piece.bytes.length;
  }

  etag(): string {
    return `W/"${this.length.toString(16)}-${hex8(this.h1)}${hex8(this.h2)}"`;
  }
}

/** A whole body, encoded, with its weak ETag. */
export function bodyWithEtag(text: string): { body: Buffer; etag: string } {
  const piece = pieceOf(text);
  const fingerprint = new BodyFingerprint();
  fingerprint.add(piece);
  return { body: piece.bytes, etag: fingerprint.etag() };
}

/** Whether an If-None-Match header names this ETag; comparison is weak, as RFC 9110 asks for If-None-Match. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  const opaque = etag.slice(2);
  for (const candidate of header.split(",")) {
    const trimmed = candidate.trim();
    if (trimmed === "*" || (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed) === opaque) return true;
  }
  return false;
}
