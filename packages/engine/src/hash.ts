// MurmurHash3 (x86, 32-bit) over the UTF-8 bytes of a string: the bucket function
// every Unleash SDK uses, so a user lands in the same bucket here as everywhere.

export const VARIANT_SEED = 86028157;

// Reused between calls: hashing is on the hot path and must not allocate per call.
let buffer = new Uint8Array(256);

function encodeUtf8(text: string): number {
  if (buffer.length < text.length * 3) buffer = new Uint8Array(text.length * 3);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      code = 0xfffd; // a lone surrogate encodes as U+FFFD, as TextEncoder does
    }
    if (code < 0x80) buffer[length++] = code;
    else if (code < 0x800) {
      buffer[length++] = 0xc0 | (code >> 6);
      buffer[length++] = 0x80 | (code & 0x3f);
    } else if (code < 0x10000) {
      buffer[length++] = 0xe0 | (code >> 12);
      buffer[length++] = 0x80 | ((code >> 6) & 0x3f);
      buffer[length++] = 0x80 | (code & 0x3f);
    } else {
      buffer[length++] = 0xf0 | (code >> 18);
      buffer[length++] = 0x80 | ((code >> 12) & 0x3f);
      buffer[length++] = 0x80 | ((code >> 6) & 0x3f);
      buffer[length++] = 0x80 | (code & 0x3f);
    }
  }
  return length;
}

function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finish(h: number, tail: number, tailLength: number, length: number): number {
  if (tailLength > 0) {
    tail = Math.imul(tail, 0xcc9e2d51);
    tail = (tail << 15) | (tail >>> 17);
    h ^= Math.imul(tail, 0x1b873593);
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashBytes(bytes: Uint8Array, length: number, seed: number): number {
  const blocks = length & ~3;
  let h = seed | 0;
  for (let i = 0; i < blocks; i += 4) {
    h = mix(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  }
  let tail = 0;
  for (let i = length - 1; i >= blocks; i--) tail = (tail << 8) | bytes[i]!;
  return finish(h, tail, length - blocks, length);
}

/** MurmurHash3 x86 32-bit of the UTF-8 encoding of `text`. */
export function murmur3(text: string, seed = 0): number {
  // ASCII is by far the common case: hash the char codes directly, no allocation.
  const length = text.length;
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(i) > 0x7f) return hashBytes(buffer, encodeUtf8(text), seed);
  }
  const blocks = length & ~3;
  let h = seed | 0;
  for (let i = 0; i < blocks; i += 4) {
    h = mix(
      h,
      text.charCodeAt(i) |
        (text.charCodeAt(i + 1) << 8) |
        (text.charCodeAt(i + 2) << 16) |
        (text.charCodeAt(i + 3) << 24),
    );
  }
  let tail = 0;
  for (let i = length - 1; i >= blocks; i--) tail = (tail << 8) | text.charCodeAt(i);
  return finish(h, tail, length - blocks, length);
}

/** The SDKs' bucket: 1..normalizer for the pair `groupId:id`. */
export function normalizedHash(id: string, groupId: string, normalizer = 100, seed = 0): number {
  return (murmur3(`${groupId}:${id}`, seed) % normalizer) + 1;
}

/**
 * `normalizedHash` for one group, compiled: the `groupId:` part is hashed once, and an ASCII
 * id continues from there without building the joined string.
 */
export function bucketing(groupId: string, normalizer = 100, seed = 0): (id: string) => number {
  const prefix = `${groupId}:`;
  let start = seed | 0;
  let tail = 0;
  let tailLength = 0;
  let length = 0;
  for (let i = 0; i < prefix.length; i++) {
    if (prefix.charCodeAt(i) > 0x7f) return (id) => normalizedHash(id, groupId, normalizer, seed);
  }
  for (; length + 4 <= prefix.length; length += 4) {
    start = mix(
      start,
      prefix.charCodeAt(length) |
        (prefix.charCodeAt(length + 1) << 8) |
        (prefix.charCodeAt(length + 2) << 16) |
        (prefix.charCodeAt(length + 3) << 24),
    );
  }
  for (; length < prefix.length; length++) tail |= prefix.charCodeAt(length) << (tailLength++ << 3);
  return (id) => {
    let h = start;
    let k = tail;
    let n = tailLength;
    for (let i = 0; i < id.length; i++) {
      const code = id.charCodeAt(i);
      if (code > 0x7f) return normalizedHash(id, groupId, normalizer, seed);
      k |= code << (n << 3);
      if (++n === 4) {
        h = mix(h, k);
        k = 0;
        n = 0;
      }
    }
    return (finish(h, k, n, length + id.length) % normalizer) + 1;
  };
}
