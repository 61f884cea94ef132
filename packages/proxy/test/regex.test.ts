import { afterAll, beforeAll, expect, it } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

let upstream: FakeUpstream;
let proxy: SignalboxProxy;
beforeAll(async () => {
  upstream = await FakeUpstream.start({
    version: 2,
    features: [
      {
        name: "nested",
        enabled: true,
        strategies: [
          { name: "default", constraints: [{ contextName: "userId", operator: "REGEX", value: "^(a+)+$" }] },
        ],
      },
    ],
  });
  proxy = await startProxy(upstream);
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

// RE2 semantics in linear time: a backtracking engine would not answer this within any
// test's lifetime, and would block every other request meanwhile.
it("answers a REGEX constraint against a long hostile input at once", async () => {
  const ask = async (userId: string) => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/proxy",
      headers: { authorization: CLIENT_KEY, "content-type": "application/json" },
      payload: { context: { userId } },
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as { toggles: { name: string }[] }).toggles.map((toggle) => toggle.name);
  };
  expect(await ask(`${"a".repeat(10_000)}!`)).toEqual([]);
  expect(await ask("a".repeat(10_000))).toEqual(["nested"]);
});
