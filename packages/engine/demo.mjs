// `npm start` (until the service lands): evaluate a small configuration for a few users.
import { compile } from "@signalbox/engine";

const snapshot = compile({
  version: 2,
  features: [
    {
      name: "new-checkout",
      enabled: true,
      strategies: [
        {
          name: "flexibleRollout",
          parameters: { rollout: "50", stickiness: "default", groupId: "new-checkout" },
        },
      ],
      variants: [
        { name: "blue", weight: 500, stickiness: "default", payload: { type: "string", value: "blue" } },
        { name: "green", weight: 500, stickiness: "default", payload: { type: "string", value: "green" } },
      ],
    },
    {
      name: "beta-banner",
      enabled: true,
      strategies: [{ name: "default", segments: [1] }],
    },
  ],
  segments: [
    { id: 1, name: "beta testers", constraints: [{ contextName: "plan", operator: "IN", values: ["beta"] }] },
  ],
});

for (const userId of ["alice", "bob", "carol", "dave"]) {
  const context = { userId, properties: { plan: userId === "carol" ? "beta" : "free" } };
  const on = snapshot
    .evaluateAll(context)
    .filter((result) => result.enabled)
    .map((result) => (result.variant.enabled ? `${result.name}:${result.variant.name}` : result.name));
  console.log(`${userId.padEnd(6)} ${on.join(", ") || "(nothing on)"}`);
}
