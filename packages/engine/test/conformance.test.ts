import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../src/index.js";

// Every file the published client specification lists, every case as its own test.
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

for (const file of read("index.json") as string[]) {
  const suite = read(file) as { name: string; state: never; tests?: Case[]; variantTests?: Case[] };
  describe(file, () => {
    const snapshot = compile(suite.state);
    for (const test of suite.tests ?? []) {
      it(`${test.description} (${test.toggleName})`, () => {
        expect(snapshot.evaluate(test.toggleName, test.context).enabled).toBe(test.expectedResult);
      });
    }
    for (const test of suite.variantTests ?? []) {
      it(`variant: ${test.description} (${test.toggleName})`, () => {
        expect(snapshot.evaluate(test.toggleName, test.context).variant).toEqual(test.expectedResult);
      });
    }
  });
}
