import { describe, expect, it } from "vitest";
import { type Context, compile, type FeatureDefinition, normalizedHash, VARIANT_SEED } from "../src/index.js";

const flag = (definition: Partial<FeatureDefinition> & { name: string }): FeatureDefinition => ({
  enabled: true,
  strategies: [{ name: "default" }],
  ...definition,
});

describe("strategies beyond the conformance suite", () => {
  it("matches IPv6 addresses and ranges in the remoteAddress strategy", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "ip",
          strategies: [{ name: "remoteAddress", parameters: { IPs: "10.0.0.0/8, 2001:db8::/32" } }],
        }),
      ],
    });
    expect(snapshot.evaluate("ip", { remoteAddress: "10.1.2.3" }).enabled).toBe(true);
    expect(snapshot.evaluate("ip", { remoteAddress: "2001:db8::7" }).enabled).toBe(true);
    expect(snapshot.evaluate("ip", { remoteAddress: "2001:db9::7" }).enabled).toBe(false);
    expect(snapshot.evaluate("ip", {}).enabled).toBe(false);
  });

  it("matches IN_CIDR ranges over the whole IPv4 space, prefix lengths 0 to 32", () => {
    const cidr = (name: string, values: string[]) =>
      flag({
        name,
        strategies: [
          { name: "default", constraints: [{ contextName: "remoteAddress", operator: "IN_CIDR", values }] },
        ],
      });
    const snapshot = compile({
      features: [
        cidr("upper-half", ["128.0.0.0/1"]),
        cidr("everything", ["0.0.0.0/0"]),
        cidr("one", ["255.255.255.255/32", "2001:db8::/32"]),
      ],
    });
    const on = (name: string, remoteAddress: string) => snapshot.evaluate(name, { remoteAddress }).enabled;
    expect(on("upper-half", "200.1.2.3")).toBe(true);
    expect(on("upper-half", "127.255.255.255")).toBe(false);
    expect(on("everything", "0.0.0.0")).toBe(true);
    expect(on("everything", "::1")).toBe(false);
    expect(on("one", "255.255.255.255")).toBe(true);
    expect(on("one", "255.255.255.254")).toBe(false);
    expect(on("one", "2001:db8:1::")).toBe(true);
    expect(on("one", "1.2.3.256")).toBe(false);
  });

  it("answers a segment named by many flags for each context, even when a strategy evaluates another", () => {
    const inSegment = { name: "default", segments: [1] };
    let snapshot: ReturnType<typeof compile> | undefined;
    const document = {
      features: [
        flag({ name: "first", strategies: [inSegment] }),
        flag({ name: "nested", strategies: [{ name: "asks-for-bob" }] }),
        flag({ name: "last", strategies: [inSegment] }),
      ],
      segments: [{ id: 1, constraints: [{ contextName: "userId", operator: "IN", values: ["ann"] }] }],
    };
    snapshot = compile(document, {
      strategies: [
        // A custom strategy that evaluates the same flags for another user in the middle of a call.
        {
          name: "asks-for-bob",
          isEnabled: () => snapshot!.evaluate("first", { userId: "bob" }).enabled === false,
        },
      ],
    });
    const answers = (userId: string) => snapshot!.evaluateAll({ userId }).map((result) => result.enabled);
    expect(answers("ann")).toEqual([true, true, true]);
    expect(answers("bob")).toEqual([false, true, false]);
    const context = { userId: "ann" };
    expect(snapshot.evaluate("last", context).enabled).toBe(true);
    // The same context object changed between calls is read afresh.
    context.userId = "bob";
    expect(snapshot.evaluate("last", context).enabled).toBe(false);
  });

  it("switches applicationHostname on for the host the embedder names", () => {
    const features = [
      flag({
        name: "host",
        strategies: [{ name: "applicationHostname", parameters: { hostNames: "Web-1,web-2" } }],
      }),
    ];
    expect(compile({ features }, { hostname: "web-1" }).evaluate("host", {}).enabled).toBe(true);
    expect(compile({ features }, { hostname: "db-1" }).evaluate("host", {}).enabled).toBe(false);
  });

  it("runs custom strategies by name, and treats unknown ones and throwing ones as off", () => {
    const features = [
      flag({ name: "beta", strategies: [{ name: "tenant", parameters: { tenants: "acme,globex" } }] }),
      flag({ name: "broken", strategies: [{ name: "explodes" }] }),
      flag({ name: "unknown", strategies: [{ name: "nobody-knows" }] }),
    ];
    const snapshot = compile(
      { features },
      {
        strategies: [
          {
            name: "tenant",
            isEnabled: (parameters, context) =>
              parameters.tenants!.split(",").includes(String(context.tenant)),
          },
          {
            name: "explodes",
            isEnabled: () => {
              throw new Error("boom");
            },
          },
        ],
      },
    );
    expect(snapshot.evaluate("beta", { tenant: "acme" }).enabled).toBe(true);
    expect(snapshot.evaluate("beta", { tenant: "initech" }).enabled).toBe(false);
    expect(snapshot.evaluate("broken", {}).enabled).toBe(false);
    expect(snapshot.evaluate("unknown", {}).enabled).toBe(false);
  });

  it("keeps a malformed constraint off even when it is inverted", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "bad-number",
          strategies: [
            {
              name: "default",
              constraints: [{ contextName: "age", operator: "NUM_GT", value: "many", inverted: true }],
            },
          ],
        }),
        flag({
          name: "bad-regex",
          strategies: [
            {
              name: "default",
              constraints: [{ contextName: "userId", operator: "REGEX", value: "(a", inverted: true }],
            },
          ],
        }),
      ],
    });
    expect(snapshot.evaluate("bad-number", { properties: { age: "3" } }).enabled).toBe(false);
    expect(snapshot.evaluate("bad-regex", { userId: "a" }).enabled).toBe(false);
  });

  it("matches REGEX constraints in RE2 syntax, in time linear in the input", () => {
    const regex = (name: string, value: string, caseInsensitive = false) =>
      flag({
        name,
        strategies: [
          {
            name: "default",
            constraints: [{ contextName: "userId", operator: "REGEX", value, caseInsensitive }],
          },
        ],
      });
    const snapshot = compile({
      features: [
        regex("nested", "^(a+)+$"),
        regex("posix", "^[[:upper:]][[:digit:]]+\\z"),
        regex("inline", "(?i)^admin-"),
        regex("anywhere", "b+c", true),
        regex("lookahead", "a(?=b)"),
      ],
    });
    // A backtracking engine takes longer than the universe's age on this input.
    expect(snapshot.evaluate("nested", { userId: `${"a".repeat(10_000)}!` }).enabled).toBe(false);
    expect(snapshot.evaluate("nested", { userId: "a".repeat(10_000) }).enabled).toBe(true);
    expect(snapshot.evaluate("posix", { userId: "A42" }).enabled).toBe(true);
    expect(snapshot.evaluate("posix", { userId: "A42\n" }).enabled).toBe(false);
    expect(snapshot.evaluate("inline", { userId: "ADMIN-1" }).enabled).toBe(true);
    expect(snapshot.evaluate("anywhere", { userId: "aBBCd" }).enabled).toBe(true);
    // RE2 has no look-around: such a constraint is malformed, and off.
    expect(snapshot.evaluate("lookahead", { userId: "ab" }).enabled).toBe(false);
  });

  it("compares Date contexts by time, even one Date changed in place, and an invalid one as off", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "launch",
          strategies: [
            {
              name: "default",
              constraints: [
                { contextName: "currentTime", operator: "DATE_AFTER", value: "2030-01-01T00:00:00.000Z" },
              ],
            },
          ],
        }),
      ],
    });
    const now = new Date("2029-12-31T23:00:00.000Z");
    expect(snapshot.evaluate("launch", { currentTime: now }).enabled).toBe(false);
    now.setTime(Date.parse("2030-01-01T01:00:00.000Z"));
    expect(snapshot.evaluate("launch", { currentTime: now }).enabled).toBe(true);
    expect(snapshot.evaluate("launch", { currentTime: new Date(Number.NaN) }).enabled).toBe(false);
  });

  it("skips disabled strategies and strategies that name a missing segment", () => {
    const snapshot = compile({
      version: 2,
      features: [
        flag({ name: "off-strategy", strategies: [{ name: "default", disabled: true }] }),
        flag({ name: "ghost-segment", strategies: [{ name: "default", segments: [99] }] }),
      ],
      segments: [],
    });
    expect(snapshot.evaluate("off-strategy", {}).enabled).toBe(false);
    expect(snapshot.evaluate("ghost-segment", {}).enabled).toBe(false);
  });
});

describe("results", () => {
  it("carries impressionData, payloads as strings and feature_enabled", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "banner",
          impressionData: true,
          variants: [{ name: "blue", weight: 1000, payload: { type: "json", value: '{"color":"blue"}' } }],
        }),
        flag({ name: "plain" }),
      ],
    });
    expect(snapshot.evaluateAll({ userId: "1" })).toEqual([
      {
        name: "banner",
        enabled: true,
        impressionData: true,
        variant: {
          name: "blue",
          enabled: true,
          feature_enabled: true,
          payload: { type: "json", value: '{"color":"blue"}' },
        },
      },
      {
        name: "plain",
        enabled: true,
        impressionData: false,
        variant: { name: "disabled", enabled: false, feature_enabled: true },
      },
    ]);
  });

  it("turns a payload value that is not a string into one, objects as JSON", () => {
    const payloadOf = (value: unknown) =>
      compile({
        features: [
          flag({
            name: "f",
            variants: [{ name: "v", weight: 1000, payload: { type: "json", value } as never }],
          }),
        ],
      }).evaluate("f", {}).variant.payload?.value;
    expect(payloadOf({ color: "blue" })).toBe('{"color":"blue"}');
    expect(payloadOf(42)).toBe("42");
  });

  it("answers every requested name, unknown ones off", () => {
    const snapshot = compile({ features: [flag({ name: "known" })] });
    expect(
      snapshot.evaluateMany(["known", "unknown"], {}).map((result) => [result.name, result.enabled]),
    ).toEqual([
      ["known", true],
      ["unknown", false],
    ]);
  });
});

describe("the stickiness fallback", () => {
  // Strategy variants share the strategy's groupId, so two such flags agree for one seed.
  const half = (name: string, stickiness: string) =>
    flag({
      name,
      strategies: [
        {
          name: "flexibleRollout",
          parameters: { rollout: "50", stickiness, groupId: "g" },
          variants: [
            { name: "a", weight: 500, stickiness },
            { name: "b", weight: 500, stickiness },
          ],
        },
      ],
    });
  const snapshot = compile({
    features: [
      half("default", "default"),
      half("twin", "default"),
      half("by-session", "sessionId"),
      flag({
        name: "sessions",
        strategies: [{ name: "gradualRolloutSessionId", parameters: { percentage: "100", groupId: "g" } }],
      }),
    ],
  });
  const outcome = (result: { enabled: boolean; variant: { name: string } }) =>
    result.enabled ? result.variant.name : "off";

  it("stands in for a missing userId and sessionId under default stickiness, the same in every flag", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const options = { stickinessFallback: String(i) };
      const [own, twin] = snapshot.evaluateMany(["default", "twin"], {}, options);
      expect(outcome(twin!)).toBe(outcome(own!));
      expect(outcome(snapshot.evaluate("default", {}, options))).toBe(outcome(own!));
      seen.add(outcome(own!));
    }
    expect(seen).toEqual(new Set(["off", "a", "b"]));
  });

  it("never becomes a sessionId, and gives way to the context's own ids", () => {
    const options = { stickinessFallback: "7" };
    expect(snapshot.evaluate("sessions", {}, options).enabled).toBe(false);
    expect(snapshot.evaluate("by-session", {}, options).enabled).toBe(false);
    for (const context of [{ userId: "42" }, { sessionId: "42" }]) {
      const withFallback = snapshot.evaluateAll(context, options).map(outcome);
      const others = snapshot.evaluateAll(context, { stickinessFallback: "8" }).map(outcome);
      expect(withFallback).toEqual(others);
    }
  });
});

describe("deltas", () => {
  it("applies events to a new snapshot and leaves the old one serving as it was", () => {
    const base = compile({
      events: [
        {
          type: "hydration",
          eventId: 1,
          features: [
            flag({ name: "seg", strategies: [{ name: "default", segments: [1] }] }),
            flag({ name: "gone" }),
          ],
          segments: [{ id: 1, constraints: [{ contextName: "userId", operator: "IN", values: ["a"] }] }],
        },
      ],
    });
    const next = base.applyDelta([
      {
        type: "segment-updated",
        eventId: 2,
        segment: { id: 1, constraints: [{ contextName: "userId", operator: "IN", values: ["b"] }] },
      },
      { type: "feature-removed", eventId: 3, featureName: "gone" },
      { type: "feature-updated", eventId: 4, feature: flag({ name: "new" }) },
    ]);
    expect(base.evaluate("seg", { userId: "a" }).enabled).toBe(true);
    expect(next.evaluate("seg", { userId: "a" }).enabled).toBe(false);
    expect(next.evaluate("seg", { userId: "b" }).enabled).toBe(true);
    expect(base.has("gone")).toBe(true);
    expect(next.features.map((feature) => feature.name)).toEqual(["seg", "new"]);
    expect(next.toClientFeatures().segments?.[0]?.constraints[0]?.values).toEqual(["b"]);
  });

  it("decides as it evaluates, and names the strategy that let the context in and where the variant came from", () => {
    const pro = {
      name: "default",
      constraints: [{ contextName: "plan", operator: "IN" as const, values: ["pro"] }],
    };
    const everyone = {
      name: "default",
      variants: [{ name: "v", weight: 1000, weightType: "variable", stickiness: "default" }],
    };
    const snapshot = compile({
      features: [
        flag({ name: "two", strategies: [pro, everyone] }),
        flag({ name: "flag-variants", variants: [{ name: "w", weight: 1000 }] }),
        flag({ name: "off", enabled: false }),
      ],
    });
    for (const context of [{ userId: "1", properties: { plan: "pro" } }, { userId: "2" }]) {
      for (const name of ["two", "flag-variants", "off", "unknown"]) {
        expect(snapshot.decide(name, context).result).toEqual(snapshot.evaluate(name, context));
      }
    }
    // The very object evaluate answers with, so hosts can keep what they make of it.
    expect(snapshot.decide("two", {}).result).toBe(snapshot.evaluate("two", {}));
    expect(snapshot.decide("two", { properties: { plan: "pro" } })).toMatchObject({ deciding: pro });
    expect(snapshot.decide("two", {})).toMatchObject({ deciding: everyone, variantSource: "strategy" });
    expect(snapshot.decide("flag-variants", {})).toMatchObject({ variantSource: "flag", flagEnabled: true });
    expect(snapshot.decide("off", {})).toMatchObject({ result: { enabled: false }, flagEnabled: false });
  });

  it("names what changed between two snapshots as events that turn one into the other", () => {
    const segment = (values: string[]) => ({
      id: 1,
      constraints: [{ contextName: "userId", operator: "IN" as const, values }],
    });
    const before = compile({
      features: [flag({ name: "kept" }), flag({ name: "changed" }), flag({ name: "gone", project: "p" })],
      segments: [segment(["a"]), { id: 2, constraints: [] }],
    });
    const after = compile({
      features: [flag({ name: "kept" }), flag({ name: "changed", enabled: false }), flag({ name: "new" })],
      segments: [segment(["b"])],
    });
    const events = after.changesSince(before, 7);
    expect(events).toEqual([
      { type: "segment-updated", eventId: 7, segment: segment(["b"]) },
      { type: "feature-updated", eventId: 7, feature: flag({ name: "changed", enabled: false }) },
      { type: "feature-updated", eventId: 7, feature: flag({ name: "new" }) },
      { type: "feature-removed", eventId: 7, featureName: "gone", project: "p" },
      { type: "segment-removed", eventId: 7, segmentId: 2 },
    ]);
    expect(before.applyDelta(events).toClientFeatures()).toEqual(after.toClientFeatures());
    expect(after.changesSince(after, 8)).toEqual([]);
  });
});

describe("variants as the Node SDK chooses them", () => {
  const variants = ["a", "b", "c", "d"].map((name) => ({ name, weight: 250, weightType: "variable" }));
  const chosen = (snapshot: ReturnType<typeof compile>, context: Context) =>
    snapshot.evaluate("v", context).variant.name;
  // The Node SDK's bucket: the variant whose cumulative weight first reaches the hash.
  const expected = (seed: string, group: string) =>
    variants[Math.ceil(normalizedHash(seed, group, 1000, VARIANT_SEED) / 250) - 1]!.name;

  it("strategy variants: the first variant's stickiness before the strategy's, groupId as sent", () => {
    const snapshot = compile({
      features: [
        flag({
          name: "v",
          strategies: [
            {
              name: "default",
              parameters: { stickiness: "userId" },
              variants: variants.map((variant) => ({ ...variant, stickiness: "tenant" })),
            },
          ],
        }),
      ],
    });
    for (let i = 0; i < 50; i++) {
      const context = { userId: `u${i}`, properties: { tenant: `t${i}` } };
      expect(chosen(snapshot, context)).toBe(expected(`t${i}`, "undefined"));
    }
  });

  it("default stickiness reads remoteAddress after userId and sessionId", () => {
    const snapshot = compile({ features: [flag({ name: "v", variants })] });
    for (let i = 0; i < 50; i++) {
      expect(chosen(snapshot, { remoteAddress: `10.0.0.${i}` })).toBe(expected(`10.0.0.${i}`, "v"));
    }
  });
});
