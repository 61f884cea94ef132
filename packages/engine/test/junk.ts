import fc from "fast-check";
import { CONSTRAINT_OPERATORS } from "../src/index.js";

// Documents and contexts as a broken or hostile source could send them: every value may be
// of the wrong type, missing or absurd.

const operators = [...CONSTRAINT_OPERATORS, "NOT_AN_OPERATOR"];
const fields = ["userId", "sessionId", "remoteAddress", "currentTime", "environment", "appName", "tenant"];
const strategyNames = [
  "default",
  "userWithId",
  "flexibleRollout",
  "gradualRolloutUserId",
  "gradualRolloutSessionId",
  "gradualRolloutRandom",
  "remoteAddress",
  "applicationHostname",
  "custom-unknown",
];

// Anything a broken or hostile document could hold where a value is expected.
const junk = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: false }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom("1.2.3", "v1.0.0", "2022-01-01T00:00:00Z", "10.0.0.0/8", "::1", "(", "[[:alpha:]]", "50"),
);

const constraint = fc.record({
  contextName: fc.oneof(fc.constantFrom(...fields), junk),
  operator: fc.oneof(fc.constantFrom(...operators), junk),
  values: fc.oneof(fc.array(fc.oneof(fc.string(), junk), { maxLength: 4 }), junk),
  value: junk,
  inverted: fc.oneof(fc.boolean(), junk),
  caseInsensitive: fc.oneof(fc.boolean(), junk),
});

const strategy = fc.record({
  id: junk,
  title: junk,
  disabled: fc.oneof(fc.boolean(), junk),
  name: fc.oneof(fc.constantFrom(...strategyNames), junk),
  parameters: fc.oneof(
    fc.dictionary(
      fc.constantFrom("rollout", "stickiness", "groupId", "userIds", "IPs", "percentage", "hostNames"),
      junk,
    ),
    junk,
  ),
  constraints: fc.oneof(fc.array(constraint, { maxLength: 3 }), junk),
  segments: fc.oneof(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }), junk),
  variants: fc.oneof(
    fc.array(
      fc.record({ name: fc.oneof(fc.string(), junk), weight: junk, stickiness: junk, payload: junk }),
      {
        maxLength: 3,
      },
    ),
    junk,
  ),
});

export const junkFeature = fc.record({
  name: fc.constantFrom("a", "b", "c"),
  enabled: fc.oneof(fc.boolean(), junk),
  impressionData: junk,
  strategies: fc.oneof(fc.array(strategy, { maxLength: 3 }), junk),
  variants: fc.oneof(
    fc.array(
      fc.record({
        name: fc.oneof(fc.string(), junk),
        weight: junk,
        overrides: fc.oneof(fc.array(fc.record({ contextName: junk, values: junk }), { maxLength: 2 }), junk),
      }),
      { maxLength: 3 },
    ),
    junk,
  ),
  dependencies: fc.oneof(
    fc.array(fc.record({ feature: junk, enabled: junk, variants: junk }), { maxLength: 2 }),
    junk,
  ),
});

export const junkContext = fc.record(
  {
    userId: junk,
    sessionId: junk,
    remoteAddress: junk,
    currentTime: junk,
    environment: junk,
    properties: fc.oneof(fc.dictionary(fc.constantFrom(...fields), junk), junk),
  },
  { requiredKeys: [] },
);

export const junkSegments = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 3 }),
    constraints: fc.oneof(fc.array(constraint), junk),
  }),
);
