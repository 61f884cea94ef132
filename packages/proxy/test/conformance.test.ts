import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type ClientFeatures, compile } from "@signalbox/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

// Every case of the published client specification (the engine's devDependency), asked of
// the proxy over its HTTP API as a browser SDK would, with the upstream serving the case's state.
const require = createRequire(import.meta.url);
const specifications = join(
  dirname(require.resolve("@unleash/client-specification/package.json")),
  "specifications",
);
const read = (file: string) => JSON.parse(readFileSync(join(specifications, file), "utf8"));

interface Case {
  description: string;
  context: Record<string, unknown>;
  toggleName: string;
  expectedResult: unknown;
}

interface Toggle {
  name: string;
  enabled: boolean;
  variant: unknown;
}

const CALLER = "127.0.0.1";

/**
 * The departure the README lists: a context without `remoteAddress` is evaluated with the
 * caller's address, as the reference proxy does. Such a case must give what the caller's
 * address gives, rather than the specification's answer.
 */
const fillsRemoteAddress = (file: string, test: Case) =>
  file.startsWith("06-") && test.context.remoteAddress === undefined;

for (const file of read("index.json") as string[]) {
  const suite = read(file) as { state: object; tests?: Case[]; variantTests?: Case[] };
  describe(file, () => {
    let upstream: FakeUpstream;
    let proxy: SignalboxProxy;
    beforeAll(async () => {
      // A delta-protocol state is served as the listing a flag service would send for it.
      upstream = await FakeUpstream.start(compile(suite.state as ClientFeatures).toClientFeatures());
      proxy = await startProxy(upstream);
    });
    afterAll(async () => {
      await proxy.close();
      await upstream.close();
    });

    const post = async (body: object): Promise<Toggle[]> => {
      const response = await proxy.app.inject({
        method: "POST",
        url: "/proxy",
        payload: body,
        remoteAddress: CALLER,
        headers: { authorization: CLIENT_KEY },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().toggles;
    };

    /** The flag asked by name, and as found (or not) among the enabled flags. */
    const ask = async (context: Record<string, unknown>, name: string) => {
      const [named] = await post({ context, toggles: [name] });
      const listed = (await post({ context })).find((toggle) => toggle.name === name);
      return { named: named!, listed };
    };

    for (const test of suite.tests ?? []) {
      it(`${test.description} (${test.toggleName})`, async () => {
        const expected = fillsRemoteAddress(file, test)
          ? (await ask({ ...test.context, remoteAddress: CALLER }, test.toggleName)).named.enabled
          : test.expectedResult;
        const { named, listed } = await ask(test.context, test.toggleName);
        expect(named.enabled, "asked by name").toBe(expected);
        expect(listed?.enabled ?? false, "among the enabled flags").toBe(expected);
      });
    }
    for (const test of suite.variantTests ?? []) {
      it(`variant: ${test.description} (${test.toggleName})`, async () => {
        const { named, listed } = await ask(test.context, test.toggleName);
        expect(named.variant, "asked by name").toEqual(test.expectedResult);
        expect(listed?.variant ?? named.variant, "among the enabled flags").toEqual(test.expectedResult);
        expect(listed !== undefined, "listed when on").toBe(named.enabled);
      });
    }
  });
}
