import murmurhash3js from "murmurhash3js";
import { describe, expect, it } from "vitest";
import { bucketing, murmur3 } from "../src/hash.js";
import { normalizedHash, VARIANT_SEED } from "../src/index.js";

// murmurhash3js (what the Node SDK uses) hashes the low byte of each character, so a
// string of UTF-8 bytes, one per character, gives the hash of the UTF-8 encoding.
const utf8Reference = (text: string, seed = 0) =>
  murmurhash3js.x86.hash32(String.fromCharCode(...new TextEncoder().encode(text)), seed);

describe("murmur3", () => {
  it("matches the published MurmurHash3 x86 32-bit vectors", () => {
    expect(murmur3("", 0)).toBe(0);
    expect(murmur3("", 1)).toBe(0x514e28b7);
    expect(murmur3("test", 0)).toBe(0xba6bd213);
    expect(murmur3("Hello, world!", 1234)).toBe(0xfaf6cdb3);
    expect(murmur3("The quick brown fox jumps over the lazy dog", 0)).toBe(0x2e4ff723);
  });

  it("agrees with the Node SDK's hash on ASCII ids", () => {
    for (const id of ["123", "user-42", "a", "ab", "abc", "abcd", "abcde", "session:99999"]) {
      expect(murmur3(`group:${id}`)).toBe(murmurhash3js.x86.hash32(`group:${id}`, 0));
      expect(murmur3(id, VARIANT_SEED)).toBe(murmurhash3js.x86.hash32(id, VARIANT_SEED));
    }
  });

  it("hashes the UTF-8 bytes of non-ASCII ids, as the other SDKs and Edge do", () => {
    for (const id of ["ünïcødé", "用户-17", "🚀rocket", "café:é", "\u{1F600}\u00e9x"]) {
      expect(murmur3(id)).toBe(utf8Reference(id));
      expect(murmur3(id, VARIANT_SEED)).toBe(utf8Reference(id, VARIANT_SEED));
    }
    // The Node SDK's low-byte hashing disagrees here; we follow UTF-8.
    expect(murmur3("用户-17")).not.toBe(murmurhash3js.x86.hash32("用户-17", 0));
  });

  it("buckets non-ASCII users into 1..100 by the UTF-8 hash of groupId:id", () => {
    const bucket = normalizedHash("Jürgen", "Ωmega-flag");
    expect(bucket).toBe((utf8Reference("Ωmega-flag:Jürgen") % 100) + 1);
    expect(bucket).toBeGreaterThanOrEqual(1);
    expect(bucket).toBeLessThanOrEqual(100);
  });

  it("buckets as normalizedHash when the group is hashed ahead, whatever the lengths and characters", () => {
    const texts = ["", "a", "ab", "abc", "abcd", "flag-12", "user-4711", "Ωmega", "Jürgen", "🚀", "x\ud800"];
    for (const groupId of texts) {
      for (const normalizer of [100, 1000, 7]) {
        for (const seed of [0, VARIANT_SEED]) {
          const bucket = bucketing(groupId, normalizer, seed);
          for (const id of texts) expect(bucket(id)).toBe(normalizedHash(id, groupId, normalizer, seed));
        }
      }
    }
  });
});
