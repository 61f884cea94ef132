import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A ULID: 48 bits of milliseconds then 80 random bits, in Crockford's base 32, so ids sort by
 * when they were made. The reference gives release templates, plans, milestones and
 * safeguards such ids; twelve lines do not need a dependency.
 */
export function ulid(now = Date.now()): string {
  let time = "";
  for (let rest = now, i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = ALPHABET[rest % 32] + time;
  let random = "";
  for (const byte of randomBytes(16)) random += ALPHABET[byte % 32];
  return time + random;
}
