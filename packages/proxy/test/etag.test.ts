import { compile } from "@signalbox/engine";
import { describe, expect, test } from "vitest";
import { bodyWithEtag, matchesEtag } from "../src/etag.js";
import { serializeToggles } from "../src/toggles.js";
import { flagDocument } from "./support/fixtures.js";

describe("serializeToggles", () => {
  const snapshot = compile(flagDocument(), { strategies: [{ name: "tenant", isEnabled: () => true }] });

  test("the body is the JSON of the results; enabledOnly leaves out what is off", () => {
    const results = snapshot.evaluateAll({ userId: "42", sessionId: "1" });
    expect(JSON.parse(serializeToggles(results, false).body.toString())).toEqual({ toggles: results });
    expect(JSON.parse(serializeToggles(results, true).body.toString())).toEqual({
      toggles: results.filter((result) => result.enabled),
    });
    expect(serializeToggles([], true).body.toString()).toBe('{"toggles":[]}');
  });

  test("the ETag follows the body: equal bodies agree, different bodies differ", () => {
    const a = serializeToggles(snapshot.evaluateAll({ userId: "42", sessionId: "1" }), true);
    const again = serializeToggles(snapshot.evaluateAll({ userId: "42", sessionId: "1" }), true);
    const other = serializeToggles(snapshot.evaluateAll({ userId: "7", sessionId: "1" }), true);
    expect(again.etag).toBe(a.etag);
    expect(other.body.equals(a.body)).toBe(false);
    expect(other.etag).not.toBe(a.etag);
  });

  test("a new configuration with the same result keeps the ETag; a changed result changes it", () => {
    const context = { userId: "42", sessionId: "1" };
    const before = serializeToggles(snapshot.evaluateAll(context), true);
    const same = compile(flagDocument(), { strategies: [{ name: "tenant", isEnabled: () => true }] });
    expect(serializeToggles(same.evaluateAll(context), true).etag).toBe(before.etag);
    const changed = flagDocument();
    changed.features[0]!.impressionData = false;
    const after = compile(changed, { strategies: [{ name: "tenant", isEnabled: () => true }] });
    expect(serializeToggles(after.evaluateAll(context), true).etag).not.toBe(before.etag);
  });

  test("the order of results is part of the fingerprint", () => {
    const results = snapshot.evaluateAll({ sessionId: "1" }).filter((result) => result.enabled);
    const reversed = [...results].reverse();
    expect(serializeToggles(reversed, true).etag).not.toBe(serializeToggles(results, true).etag);
  });

  test("the ETag is weak and carries the byte length", () => {
    const { body, etag } = serializeToggles(snapshot.evaluateAll({ sessionId: "1" }), true);
    expect(etag).toMatch(new RegExp(`^W/"${body.length.toString(16)}-[0-9a-f]{16}"$`));
    expect(bodyWithEtag("ü").etag).toMatch(/^W\/"2-/);
  });
});

describe("matchesEtag", () => {
  const etag = 'W/"10-00000000deadbeef"';
  test.each([
    [undefined, false],
    [etag, true],
    ['"10-00000000deadbeef"', true],
    [`W/"other", ${etag}`, true],
    ["*", true],
    ['W/"10-00000000deadbee0"', false],
  ])("If-None-Match %s", (header, expected) => {
    expect(matchesEtag(header, etag)).toBe(expected);
  });
});
